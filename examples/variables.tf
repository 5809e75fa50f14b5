variable "project" {
  type        = string
  description = "Project name used in every resource name."
  default     = "foresight"
}

variable "environment" {
  type    = string
  default = "dev"

  validation {
    condition     = contains(["dev", "staging", "prod"], var.environment)
    error_message = "The environment must be dev, staging or prod."
  }
}

variable "server_count" {
  type    = number
  default = 2
}

variable "buckets" {
  type    = list(string)
  default = ["logs", "assets"]
}
