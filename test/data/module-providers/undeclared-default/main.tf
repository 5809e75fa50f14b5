module "m" {
  source    = "./child"
  providers = { random = random }
}
module "mid" {
  source = "./mid"
}
