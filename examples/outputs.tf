output "server_names" {
  value = terraform_data.server[*].output.name
}

output "bucket_names" {
  value = { for k, b in terraform_data.bucket : k => b.output }
}

output "greeting" {
  value = module.greeting.message
}
