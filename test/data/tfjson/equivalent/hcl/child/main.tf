variable "prefix" {
  type = string
}

resource "terraform_data" "x" {
  provider = terraform
  input    = "${var.prefix}%{if var.prefix != ""}!%{endif}"
}

output "greeting" {
  value = "hello ${var.prefix}"
}
