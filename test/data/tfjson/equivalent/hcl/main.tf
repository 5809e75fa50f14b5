terraform {
  required_version = ">= 1.5"
}

variable "names" {
  type        = list(string)
  default     = ["a", "b"]
  description = "Names of things"
  validation {
    condition     = length(var.names) > 0
    error_message = "At least one name."
  }
}

variable "settings" {
  type = object({ size = number, tags = map(string) })
  default = {
    size = 2
    tags = { env = "dev" }
  }
}

locals {
  upper  = [for n in var.names : upper(n)]
  tagged = merge(var.settings.tags, { count = tostring(var.settings.size) })
}

resource "terraform_data" "each" {
  for_each = toset(var.names)
  input    = "${each.key}-${local.tagged["env"]}"
  lifecycle {
    ignore_changes = [input]
    precondition {
      condition     = each.key != ""
      error_message = "Empty name."
    }
  }
}

resource "terraform_data" "counted" {
  count            = var.settings.size
  input            = { index = count.index, names = local.upper }
  triggers_replace = [var.settings.size]
  depends_on       = [terraform_data.each]
  lifecycle {
    create_before_destroy = true
    replace_triggered_by  = [terraform_data.each]
  }
}

module "child" {
  source = "./child"
  prefix = local.upper[0]
}

output "ids" {
  value = { for k, v in terraform_data.each : k => v.input }
}

output "child" {
  value     = module.child.greeting
  sensitive = true
}

check "names" {
  assert {
    condition     = length(local.upper) == 2
    error_message = "Two names expected."
  }
}

moved {
  from = terraform_data.old
  to   = terraform_data.renamed
}

resource "terraform_data" "renamed" {
  input = 5
}
