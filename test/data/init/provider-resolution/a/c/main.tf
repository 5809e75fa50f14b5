resource "terraform_data" "c_default" {}
