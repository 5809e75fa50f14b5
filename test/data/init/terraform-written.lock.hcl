# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/null" {
  version = "3.2.4"
  hashes = [
    "h1:4K5ViLPkSufvMLW7BGnn4omoagrpz7YgizRkWbz54eg=",
  ]
}

provider "registry.terraform.io/hashicorp/random" {
  version     = "3.7.2"
  constraints = "~> 3.0"
  hashes = [
    "h1:NzuBHFnoT3PJUo5iettLXUTm6/+3oQo4HRoy61HqnvU=",
  ]
}
