variable "a" { type = lst(string) }
variable "b" { type = strin }
variable "c" { type = list }
variable "d" { type = object({ a = optional(number, "x") }) }
variable "e" { type = object({ "a b" = string }) }
variable "f" { type = optional(string) }
variable "g" { type = map(string, number) }
variable "h" { type = object({ a = optional(string, var.x) }) }
variable "i" { type = "string" }
variable "j" { type = string() }
