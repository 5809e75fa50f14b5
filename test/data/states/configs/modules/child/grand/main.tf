variable "in" {
  type = string
}
resource "terraform_data" "g" {
  input = var.in
}
