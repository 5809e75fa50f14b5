resource "terraform_data" "t" {
  count = 2
  input = count.index
}
