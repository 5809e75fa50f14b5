provider "terraform" {
  alias = "west"
}

resource "terraform_data" "root_default" {}

resource "terraform_data" "root_west" {
  provider = terraform.west
}

module "a" {
  source = "./a"
  providers = {
    terraform      = terraform.west
    terraform.east = terraform
  }
}

module "b" {
  source = "./b"
}
