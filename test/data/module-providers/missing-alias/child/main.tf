terraform {
  required_providers {
    random = {
      source                = "hashicorp/random"
      configuration_aliases = [random.two]
    }
  }
}
resource "random_id" "x" {
  byte_length = 2
}
resource "random_id" "y" {
  provider    = random.two
  byte_length = 2
}
