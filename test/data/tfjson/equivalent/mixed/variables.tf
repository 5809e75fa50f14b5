variable "names" {
  type        = list(string)
  default     = ["a", "b"]
  description = "Names of things"
  validation {
    condition     = length(var.names) > 0
    error_message = "At least one name."
  }
}

variable "settings" {
  type = object({ size = number, tags = map(string) })
  default = {
    size = 2
    tags = { env = "dev" }
  }
}

check "names" {
  assert {
    condition     = length(local.upper) == 2
    error_message = "Two names expected."
  }
}

