terraform {
  required_providers {
    terraform = {
      source = "terraform.io/builtin/terraform"
    }
  }
}

provider "terraform" {
  alias = "own"
}

resource "terraform_data" "b_own" {
  provider = terraform.own
}

resource "terraform_data" "b_inherit" {}

