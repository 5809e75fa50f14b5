environment  = "staging"
server_count = 3
