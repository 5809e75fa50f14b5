# A local child module: builds a greeting from its input.

variable "name" {
  type = string
}

resource "terraform_data" "message" {
  input = "Hello from ${var.name}!"
}

output "message" {
  value = terraform_data.message.output
}
