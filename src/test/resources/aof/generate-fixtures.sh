#!/bin/sh
# Regenerates the AOF fixtures with a real Redis 7.0 (Debian's redis-server 7.0.15 made them).
# Each fixture is an appendonlydir written by Redis itself: keys of every type, a BGREWRITEAOF,
# then more writes (a MULTI/EXEC block, expiries, deletes) that land in the new INCR file.
# Usage: generate-fixtures.sh [port]   (any free port but 6379)
set -e
port=${1:-7391}
here=$(cd "$(dirname "$0")" && pwd)

make_fixture() {
  name=$1; preamble=$2
  work=$(mktemp -d)
  redis-server --port "$port" --dir "$work" --appendonly yes --save '' --daemonize yes \
    --aof-use-rdb-preamble "$preamble" --aof-timestamp-enabled yes --logfile "$work/log" --pidfile "$work/pid"
  cli="redis-cli -p $port"
  until $cli ping >/dev/null 2>&1; do sleep 0.1; done
  $cli set str "hello world" >/dev/null
  $cli set "key with spaces" "value\r\nwith crlf" >/dev/null
  $cli set num 12345 >/dev/null
  $cli rpush list a b c 1 2 3 >/dev/null
  for i in $(seq 1 70); do $cli rpush biglist "item-$i" >/dev/null; done
  $cli sadd intset 1 2 3 100 -5 >/dev/null
  $cli sadd set x y z >/dev/null
  $cli zadd zset 1.5 a 2 b -3.25 c inf d -inf e 0.1 f >/dev/null
  $cli hset hash f1 v1 f2 v2 >/dev/null
  $cli pexpireat str 4102444800000 >/dev/null
  $cli select 3 >/dev/null
  $cli -n 3 set db3key db3value >/dev/null
  $cli bgrewriteaof >/dev/null
  while [ "$($cli info persistence | grep -c 'aof_rewrite_in_progress:1')" = 1 ] || \
        [ "$($cli info persistence | grep -c 'aof_rewrite_scheduled:1')" = 1 ]; do sleep 0.1; done
  sleep 0.5
  $cli incr num >/dev/null
  $cli del set >/dev/null
  printf 'MULTI\nSET inmulti 1\nRPUSH list tail\nEXEC\n' | $cli >/dev/null
  $cli -n 3 set db3other other >/dev/null
  $cli expire hash 1000000 >/dev/null
  $cli shutdown nosave >/dev/null 2>&1 || true
  sleep 0.3
  rm -rf "$here/$name"
  cp -r "$work/appendonlydir" "$here/$name"
  rm -rf "$work"
}

make_fixture redis-7.0-resp-base no
make_fixture redis-7.0-rdb-base yes
