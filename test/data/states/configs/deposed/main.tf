resource "terraform_data" "cbd" {
  input = "x"
  lifecycle {
    create_before_destroy = true
  }
}
