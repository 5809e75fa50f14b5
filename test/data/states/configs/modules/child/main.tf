variable "name" {
  type = string
}
resource "terraform_data" "r" {
  input = var.name
}
module "grand" {
  source = "./grand"
  in     = terraform_data.r.output
}
output "id" {
  value = terraform_data.r.id
}
