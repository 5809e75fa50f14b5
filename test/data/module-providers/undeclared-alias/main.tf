module "m" {
  source    = "./child"
  providers = { random.two = random.nope }
}
