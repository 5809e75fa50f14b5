terraform {
  required_providers {
    terraform = {
      source                = "terraform.io/builtin/terraform"
      configuration_aliases = [terraform.east]
    }
  }
}

resource "terraform_data" "a_default" {}

resource "terraform_data" "a_east" {
  provider = terraform.east
}

module "c" {
  source = "./c"
}
