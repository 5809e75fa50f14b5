terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

# Fake credentials and skip_* flags: validate and plan never touch the network.
provider "aws" {
  region                      = "us-east-1"
  access_key                  = "AKIAFAKEFAKEFAKEFAKE"
  secret_key                  = "fake-secret-key"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
  default_tags {
    tags = {
      Project = "foresight"
    }
  }
}

variable "env" {
  type    = string
  default = "test"
}

locals {
  name = "foresight-${var.env}"
}

resource "aws_cloudwatch_log_group" "app" {
  name              = "/app/${local.name}"
  retention_in_days = 14
  tags = {
    Team = "platform"
  }
}

resource "aws_iam_role" "app" {
  name = "${local.name}-role"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Action    = "sts:AssumeRole"
      Principal = { Service = "lambda.amazonaws.com" }
    }]
  })
  tags = {
    Name = "${local.name}-role"
  }
}

resource "aws_iam_policy" "read" {
  name        = "${local.name}-read"
  description = "read the logs"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["logs:GetLogEvents", "logs:DescribeLogStreams"]
      Resource = "*"
      Condition = {
        StringEquals = { "aws:RequestedRegion" = "us-east-1" }
      }
    }]
  })
}

resource "aws_iam_role_policy" "logs" {
  name = "logs"
  role = aws_iam_role.app.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["logs:CreateLogStream", "logs:PutLogEvents"]
      Resource = "${aws_cloudwatch_log_group.app.arn}:*"
    }]
  })
}

resource "aws_vpc" "main" {
  cidr_block           = "10.0.0.0/16"
  enable_dns_hostnames = true
  tags = {
    Name = local.name
  }
}

resource "aws_lb_target_group" "web" {
  name     = "${var.env}-web"
  port     = 443
  protocol = "HTTPS"
  vpc_id   = aws_vpc.main.id

  health_check {
    path                = "/healthz"
    healthy_threshold   = 3
    unhealthy_threshold = 2
    matcher             = "200-299"
  }

  stickiness {
    type            = "lb_cookie"
    cookie_duration = 3600
  }
}

resource "aws_sqs_queue" "jobs" {
  count                      = 2
  name                       = "${local.name}-jobs-${count.index}"
  visibility_timeout_seconds = 60
  tags = {
    Index = tostring(count.index)
  }
}

output "role_arn" {
  value = aws_iam_role.app.arn
}

# Attributes written as blocks (the legacy SDK's ingress/egress are set-of-object attributes; core's
# blocktoattr accepts them as blocks, dynamic ones too).
resource "aws_security_group" "web" {
  name   = "web"
  vpc_id = aws_vpc.main.id

  ingress {
    description = "https"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/16"]
  }

  ingress {
    from_port   = 80
    to_port     = 80
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/16"]
  }

  dynamic "egress" {
    for_each = ["0.0.0.0/0"]
    content {
      from_port   = 0
      to_port     = 0
      protocol    = "-1"
      cidr_blocks = [egress.value]
    }
  }
}
