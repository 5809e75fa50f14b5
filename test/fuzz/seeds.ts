// Seed inputs for the fuzz test: realistic configurations and expressions that mutations start from.

export const CONFIG_SEEDS: Record<string, string> = {
  'resources.tf': `terraform {
  required_version = ">= 1.5"
}

variable "names" {
  type    = list(string)
  default = ["a", "b", "c"]
  validation {
    condition     = length(var.names) > 0
    error_message = "At least one name."
  }
}

variable "settings" {
  type = object({
    size = number
    tags = optional(map(string), {})
  })
  default = { size = 2 }
}

locals {
  prefix = "app-\${terraform.workspace}"
  by_name = { for n in var.names : n => upper(n) if n != "" }
  total   = var.settings.size * 2 + 1
}

resource "terraform_data" "each" {
  for_each = local.by_name
  input = {
    key   = each.key
    value = "\${local.prefix}-\${each.value}"
  }
  lifecycle {
    create_before_destroy = true
  }
}

resource "terraform_data" "counted" {
  count = local.total
  input = [for i in range(count.index) : i * 2]
  triggers_replace = terraform_data.each["a"].output
}

output "ids" {
  value = terraform_data.counted[*].id
}
`,
  'templates.tf': `locals {
  doc = <<-EOT
    Hello %{ if length(var.names) > 1 }all%{ else }one%{ endif }!
    %{~ for n in var.names ~}
    - \${n}
    %{~ endfor ~}
  EOT
  plain = <<EOT
raw $\${not} %%{not}
EOT
  json = jsonencode({ a = [1, 2.5, -3e2], b = null, c = true })
  cond = var.settings.size > 1 ? "big" : "small"
  splat = [for x in [{ a = 1 }, { a = 2 }] : x.a]
  nested = { x = { y = { z = [1, [2, [3]]] } } }
}

variable "names" {
  default = ["x"]
}
variable "settings" {
  default = { size = 1 }
}

/* a block comment
   across lines */
# a hash comment
// a slash comment
`,
  'dynamic.tf': `variable "rules" {
  type = list(object({ port = number, cidr = string }))
  default = [{ port = 80, cidr = "0.0.0.0/0" }]
}

resource "terraform_data" "d" {
  input = [for r in var.rules : "\${r.cidr}:\${r.port}"]
  dynamic "rule" {
    for_each = var.rules
    content {
      port = rule.value.port
    }
  }
}

moved {
  from = terraform_data.old
  to   = terraform_data.d
}

check "health" {
  assert {
    condition     = length(var.rules) < 10
    error_message = "Too many rules: \${length(var.rules)}."
  }
}
`,
  'values.tfvars': `names    = ["p", "q"]
settings = { size = 3, tags = { env = "dev" } }
`,
};

export const EXPRESSION_SEEDS: string[] = [
  '1 + 2 * 3 - 4 / 5 % 6',
  '"a-${var.x}-%{ if true }y%{ endif }"',
  '[for i, v in ["a", "b"] : "${i}=${v}" if v != "c"]',
  '{ for k, v in { a = 1, b = 2 } : k => v * 2... }',
  'length(split(",", "a,b,c")) > 2 ? upper("x") : lower("Y")',
  'jsonencode({ list = [1, 2.5, -3e-2], nested = { t = true, n = null } })',
  'merge({ a = 1 }, { b = [for x in range(3) : x] })["b"][1]',
  '[{ a = 1 }, { a = 2 }][*].a',
  '!(1 < 2 && 3 >= 2 || false)',
  'format("%s-%03d", "n", 7)',
];
