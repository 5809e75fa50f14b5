provider "random" {
  alias = "other"
}
module "passed" {
  source    = "./child"
  providers = { random = random.other }
}
module "inherit" {
  source = "./child"
  count  = 2
}
module "legacy" {
  source = "./legacy"
}
