# Hosts for the ssh tests (sourced): network namespaces on a bridge, each
# with its own host name (a UTS namespace), its own /dev/shm (a mount
# namespace with a fresh tmpfs) and a real OpenSSH server that
# accepts only a key pair generated for this run.  Nothing outside the
# test's directory is changed: sshd reads its host key and the authorized
# key from there, and the client options in GASNET_SSH_OPTIONS point at
# them.
#
#   netns_up COUNT DIR   hosts gph1..gphCOUNT at 10.77.0.1.., gp-run's side at
#                        10.77.0.254; sets NETNS_HOSTS, GASNET_SSH_OPTIONS;
#                        returns non-zero (with $netns_why) if it can't
#   netns_down           kills every process in the namespaces, removes them
#   netns_pids HOST      the pids running in namespace HOST
#
# The names, the bridge and the subnet are the machine's, not the run's: two
# suites on one machine (another build, another user's CI) would remove each
# other's hosts.  netns_up therefore takes NETNS_LOCK (waiting up to
# NETNS_LOCK_WAIT seconds for a suite that holds it) and keeps it until
# netns_down or its script's end; only the lock holder clears leftovers.
NETNS_LOCK=${NETNS_LOCK:-/run/gp-netns.lock}
NETNS_LOCK_WAIT=${NETNS_LOCK_WAIT:-1200}
NETNS_PREFIX=gph
NETNS_BRIDGE=gpbr0
NETNS_NET=10.77.0

netns_why=
netns_count=0
netns_locked=0
netns_dir=

netns_pids() { ip netns pids "$1" 2>/dev/null; }

netns_down() {
    # Only the lock holder removes anything: a suite that never got the lock
    # (or never asked) must not take down the hosts of the one that has it.
    [ "$netns_locked" = 1 ] || return 0
    i=1
    while [ "$i" -le "$netns_count" ]; do
        for pid in $(netns_pids "$NETNS_PREFIX$i"); do kill -9 "$pid" 2>/dev/null; done
        ip netns del "$NETNS_PREFIX$i" 2>/dev/null
        ip link del "gpv$i" 2>/dev/null
        i=$((i + 1))
    done
    ip link del "$NETNS_BRIDGE" 2>/dev/null
    netns_count=0
    netns_locked=0
    # Released here, or by the kernel when the script ends.
    exec 9>&-
}

netns_up() {
    count=$1 netns_dir=$2
    if [ "$(id -u)" -ne 0 ]; then netns_why="needs root (network namespaces)"; return 1; fi
    for tool in ip unshare /usr/sbin/sshd ssh ssh-keygen; do
        command -v "$tool" >/dev/null 2>&1 || { netns_why="$tool is missing (tools/deps.sh installs it)"; return 1; }
    done
    command -v flock >/dev/null 2>&1 || { netns_why="flock is missing (util-linux)"; return 1; }
    exec 9>>"$NETNS_LOCK" || { netns_why="cannot open the lock $NETNS_LOCK"; return 1; }
    if ! flock -w "$NETNS_LOCK_WAIT" 9; then
        netns_why="another suite held $NETNS_LOCK (the test hosts) for over $NETNS_LOCK_WAIT s"
        exec 9>&-
        return 1
    fi
    netns_locked=1
    # Leftovers of an earlier run that was killed (we hold the lock: nobody uses them).
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$NETNS_PREFIX[0-9]*$"); do
        for pid in $(netns_pids "$ns"); do kill -9 "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    for link in $(ip -o link show 2>/dev/null | sed -n 's/^[0-9]*: \(gpv[0-9]*\)@.*/\1/p'); do
        ip link del "$link" 2>/dev/null
    done
    ip link del "$NETNS_BRIDGE" 2>/dev/null
    mkdir -p /run/sshd
    ssh-keygen -q -t ed25519 -N '' -f "$netns_dir/host_key" || { netns_why="ssh-keygen failed"; return 1; }
    ssh-keygen -q -t ed25519 -N '' -f "$netns_dir/client_key" || { netns_why="ssh-keygen failed"; return 1; }
    cp "$netns_dir/client_key.pub" "$netns_dir/authorized_keys"
    chmod 600 "$netns_dir/host_key" "$netns_dir/client_key" "$netns_dir/authorized_keys"
    if ! ip link add "$NETNS_BRIDGE" type bridge 2>"$netns_dir/ip.err"; then
        netns_why="cannot make a bridge: $(cat "$netns_dir/ip.err")"; return 1
    fi
    ip addr add "$NETNS_NET.254/24" dev "$NETNS_BRIDGE"
    ip link set "$NETNS_BRIDGE" up
    netns_count=$count
    NETNS_HOSTS=
    i=1
    while [ "$i" -le "$count" ]; do
        ns=$NETNS_PREFIX$i
        ip netns add "$ns" || { netns_why="ip netns add $ns failed"; return 1; }
        ip link add "gpv$i" type veth peer name eth0 netns "$ns" || { netns_why="veth for $ns failed"; return 1; }
        ip link set "gpv$i" master "$NETNS_BRIDGE" up
        ip -n "$ns" addr add "$NETNS_NET.$i/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        ip -n "$ns" route add default via "$NETNS_NET.254"
        # Its own host name and its own /dev/shm, as a separate machine has.
        ip netns exec "$ns" unshare --uts --mount sh -c "hostname $ns && \
            mount -t tmpfs -o size=1g,mode=1777 tmpfs /dev/shm && exec /usr/sbin/sshd -f /dev/null \
            -h '$netns_dir/host_key' -p 22 -o ListenAddress=$NETNS_NET.$i \
            -o PidFile='$netns_dir/sshd$i.pid' -o PermitRootLogin=prohibit-password -o UsePAM=no \
            -o AuthorizedKeysFile='$netns_dir/authorized_keys' -o StrictModes=no \
            -o PasswordAuthentication=no -o KbdInteractiveAuthentication=no -o MaxStartups=100 \
            -o LogLevel=ERROR -E '$netns_dir/sshd$i.log'" || { netns_why="sshd in $ns failed: $(cat "$netns_dir/sshd$i.log" 2>/dev/null)"; return 1; }
        NETNS_HOSTS="$NETNS_HOSTS $NETNS_NET.$i"
        i=$((i + 1))
    done
    GASNET_SSH_OPTIONS="-i '$netns_dir/client_key' -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=5"
    export GASNET_SSH_OPTIONS
    unset GASNET_SSH_NODEFILE GASNET_SSH_SERVERS GASNET_SSH_CMD
    # Every sshd answers before the tests start.
    for h in $NETNS_HOSTS; do
        tries=0
        until eval ssh $GASNET_SSH_OPTIONS "$h" true 2>"$netns_dir/ssh.err"; do
            tries=$((tries + 1))
            if [ $tries -ge 50 ]; then netns_why="ssh to $h does not work: $(cat "$netns_dir/ssh.err")"; return 1; fi
            sleep 0.2
        done
    done
    return 0
}
