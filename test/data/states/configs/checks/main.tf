variable "n" {
  type    = number
  default = 3
  validation {
    condition     = var.n > 0
    error_message = "positive"
  }
}
resource "terraform_data" "r" {
  count = 2
  input = var.n
  lifecycle {
    postcondition {
      condition     = self.output == var.n
      error_message = "mismatch"
    }
  }
}
check "warn" {
  assert {
    condition     = var.n < 2
    error_message = "n is large"
  }
}
output "o" {
  value = var.n
  precondition {
    condition     = var.n != 0
    error_message = "zero"
  }
}
