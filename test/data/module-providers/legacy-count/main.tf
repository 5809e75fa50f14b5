module "legacy" {
  source   = "./legacy"
  for_each = toset(["a", "b"])
}
