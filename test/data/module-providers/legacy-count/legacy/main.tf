provider "random" {
  foo = 1
}
resource "random_id" "y" {
  byte_length = 2
}
