resource "terraform_data" "single" {
  input = { name = "a<b>&c", n = 12345678901234567890, f = 1.5, l = [1, 2], nested = { x = true } }
}

resource "terraform_data" "counted" {
  count = 3
  input = "c${count.index}"
}

resource "terraform_data" "each" {
  for_each = toset(["b", "a", "z", "10", "9"])
  input    = each.key
  lifecycle {
    create_before_destroy = true
  }
}

resource "terraform_data" "dep" {
  input            = terraform_data.single.output
  triggers_replace = [terraform_data.counted[0].id]
}

variable "secret" {
  type      = string
  default   = "hunter2"
  sensitive = true
}

resource "terraform_data" "sens" {
  input = { pw = var.secret, plain = "x", list = [var.secret] }
}

output "str" {
  value = "hello \u2028 <tag>"
}
output "num" {
  value = 3.25
}
output "obj" {
  value = { a = 1, b = [true, false], c = null }
}
output "secret" {
  value     = var.secret
  sensitive = true
}
output "tup" {
  value = [1, "two", terraform_data.counted[*].input]
}
output "map" {
  value = tomap({ z = "1", a = "2" })
}
output "set" {
  value = toset(["q", "p"])
}
