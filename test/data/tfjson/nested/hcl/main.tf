variable "org" {
  type    = list(string)
  default = ["Acme", "Beta"]
}

resource "tls_private_key" "k" {
  algorithm = "ECDSA"
}

resource "tls_cert_request" "static" {
  private_key_pem = tls_private_key.k.private_key_pem
  dns_names       = ["example.com"]
  subject {
    common_name  = "example.com"
    organization = var.org[0]
  }
}

resource "tls_cert_request" "dynamic" {
  for_each        = toset(var.org)
  private_key_pem = tls_private_key.k.private_key_pem
  dynamic "subject" {
    for_each = [each.key]
    iterator = o
    content {
      common_name  = "${lower(o.value)}.example.com"
      organization = o.value
    }
  }
}
