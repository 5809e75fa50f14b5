variable "n" {
  type = number
}
variable "m" {
  type    = map(string)
  default = {}
}
output "o" {
  value = "${var.n} ${jsonencode(var.m)}"
}
