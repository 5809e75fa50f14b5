terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "AKIAFAKEFAKEFAKEFAKE"
  secret_key                  = "fake-secret-key"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}

resource "aws_cloudwatch_log_group" "bad" {
  name              = "bad"
  retention_in_days = 8
}

resource "aws_sqs_queue" "bad" {
  name                       = "bad"
  visibility_timeout_seconds = 100000
}
