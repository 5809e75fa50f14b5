# A small Foresight example workspace: input variables, locals, a local module, count and for_each,
# terraform_data resources (Terraform's built-in provider, no download needed) and outputs.

terraform {
  required_version = ">= 1.5.0"
}

locals {
  prefix = "${var.project}-${var.environment}"
  tags = {
    project     = var.project
    environment = var.environment
  }
}

resource "terraform_data" "server" {
  count = var.server_count

  input = {
    name = "${local.prefix}-server-${count.index}"
    tags = local.tags
  }
}

resource "terraform_data" "bucket" {
  for_each = toset(var.buckets)

  input = "${local.prefix}-${each.key}"

  lifecycle {
    create_before_destroy = true
  }
}

module "greeting" {
  source = "./modules/greeting"

  name = local.prefix
}
