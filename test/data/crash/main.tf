# Crash-safety fixture for test/engine/crash.test.ts: 100 chains of three instances (300 in all). log/<i> is
# written by local_file.l[i] when its apply completes and holds the chain's uuid.
resource "random_uuid" "u" {
  count = 100
}

resource "time_sleep" "s" {
  count           = 100
  create_duration = "${5 + (count.index * 7) % 16}ms"
  triggers = {
    u = random_uuid.u[count.index].result
  }
}

resource "local_file" "l" {
  count    = 100
  filename = "${path.module}/log/${count.index}"
  content  = time_sleep.s[count.index].triggers.u
}
