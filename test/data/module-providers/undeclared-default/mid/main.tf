terraform {
  required_providers {
    random = { source = "hashicorp/random" }
  }
}
module "c" {
  source    = "../child"
  providers = { random = random }
}
