locals {
  a = <<EOT
hello
  world
EOT
  b = <<-EOT
    indented
      more
    back
    EOT
  c = <<-EOT
    x ${"y"}
  ${"z"} w

    last
  EOT
  d = <<EOT
${"only"}
EOT
  e = <<-EOT
	tab
	  tab2
	EOT
  f = <<EOT
a %{ if true ~}
b
%{~ endif } c
EOT
  g = [for x in [1,2] : x
  if x > 1]
  h = {
    a = 1
    "b" = 2
    c = 3, d = 4
  }
}
