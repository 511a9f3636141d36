package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// packets is the sum of zk_packets_received over the servers: the
// server's own count of what clients sent it (pings included).
func (b *bench) packets(ctx context.Context) (int64, error) {
	var sum int64
	for _, addr := range b.servers {
		m, err := zkserver.Mntr(ctx, addr)
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(m["zk_packets_received"], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("mntr on %s: zk_packets_received %q: %w", addr, m["zk_packets_received"], err)
		}
		sum += n
	}
	return sum, nil
}

// warmUp runs create+delete pairs for d on the admin session, so the
// server's JIT has compiled the request path before the first row, and at
// the same time Curator's acquire+release on a session of its own, so the
// JVM's has compiled Curator's lock path.
func (b *bench) warmUp(ctx context.Context, d time.Duration) error {
	dir := b.base + "/warm-up"
	if _, err := b.admin.Create(dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		return fmt.Errorf("warm-up: create %s: %w", dir, err)
	}
	defer znode.DeleteTree(b.admin, dir)
	var curatorErr error
	var wg sync.WaitGroup
	if b.curator != nil {
		cdir := b.base + "/warm-up-curator"
		if _, err := b.admin.Create(cdir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			return fmt.Errorf("warm-up: create %s: %w", cdir, err)
		}
		defer znode.DeleteTree(b.admin, cdir)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.curator.warmUp(ctx, cdir, d); err != nil {
				curatorErr = fmt.Errorf("warm-up: curator: %w", err)
			}
		}()
	}
	fctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	_, _, _, err := floor(fctx, b.admin, dir+"/pair-", math.MaxInt)
	wg.Wait()
	return errors.Join(err, curatorErr)
}
