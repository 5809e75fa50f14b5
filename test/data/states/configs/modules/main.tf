module "child" {
  source = "./child"
  count  = 2
  name   = "c${count.index}"
}
module "keyed" {
  source   = "./child"
  for_each = { blue = 1, "with space" = 2 }
  name     = each.key
}
data "terraform_remote_state" "self" {
  backend = "local"
  config = {
    path = "${path.module}/other.tfstate"
  }
  defaults = {
    v = "default"
  }
}
output "children" {
  value = module.child[*].id
}
output "remote" {
  value = data.terraform_remote_state.self.outputs
}
