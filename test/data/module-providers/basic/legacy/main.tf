provider "random" {
}
resource "random_id" "y" {
  byte_length = 2
}
