resource "random_id" "x" {
  byte_length = 2
}
