#!/usr/bin/env bash
# An OpenSSH server of the tests' own on 127.0.0.1, for the remote-worker tests: a throwaway host
# key and client key in DIR, a free port of its own, keys only, nothing of the system's sshd
# configuration used or changed.
#   local_sshd.sh start DIR   starts it; prints the port; DIR/ssh_config is a client
#                             configuration that trusts its host key and logs in with its key
#   local_sshd.sh stop DIR    stops it
set -euo pipefail
action=$1 dir=$2
sshd=$(command -v sshd || echo /usr/sbin/sshd)

if [[ $action == stop ]]; then
  [[ -f $dir/sshd.pid ]] && kill "$(cat "$dir/sshd.pid")" 2>/dev/null || true
  exit 0
fi

[[ -x $sshd ]] || { echo "no sshd: install openssh-server" >&2; exit 1; }
mkdir -p "$dir"
chmod 700 "$dir"
rm -f "$dir"/host_key* "$dir"/client_key*
ssh-keygen -q -t ed25519 -N "" -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N "" -f "$dir/client_key"
cp "$dir/client_key.pub" "$dir/authorized_keys"
mkdir -p /run/sshd # privilege separation's empty folder, which sshd insists on
for attempt in $(seq 1 20); do
  port=$((20000 + (RANDOM % 20000)))
  cat > "$dir/sshd_config" <<CONFIG
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication yes
KbdInteractiveAuthentication no
PermitRootLogin yes
StrictModes no
UsePAM no
LogLevel ERROR
CONFIG
  rm -f "$dir/sshd.pid"
  "$sshd" -f "$dir/sshd_config" -E "$dir/sshd.log" || continue
  for _ in $(seq 1 50); do [[ -s $dir/sshd.pid ]] && break; sleep 0.05; done
  [[ -s $dir/sshd.pid ]] || continue
  cat > "$dir/ssh_config" <<CLIENT
Host warplens-test
  HostName 127.0.0.1
  Port $port
  IdentityFile $dir/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $dir/known_hosts
  StrictHostKeyChecking yes
  LogLevel ERROR
CLIENT
  echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$dir/host_key.pub")" > "$dir/known_hosts"
  if ssh -F "$dir/ssh_config" warplens-test true 2>> "$dir/sshd.log"; then
    echo "$port"
    exit 0
  fi
  kill "$(cat "$dir/sshd.pid")" 2>/dev/null || true
done
echo "no port would take sshd: $(tail -3 "$dir/sshd.log")" >&2
exit 1
