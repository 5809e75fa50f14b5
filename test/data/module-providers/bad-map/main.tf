provider "random" {
  alias = "a"
}
module "m" {
  source    = "./child"
  providers = { nope = random, random.two = random.a }
}
