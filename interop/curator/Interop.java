// Interop runs Apache Curator's recipes for the interop tests
// (interop/curator_test.go), which compile this file with javac, start it
// once per test and drive it over stdin/stdout, one line each way:
//
//   go → java                              java → go
//   new <id> <kind> <path> [<n>]           ready <id>         a client (its own session)
//                                                             with one recipe on path
//   acquire <id> [<check>]                 acquired <id>      once it holds (latch: leads),
//                                                             then enters the check
//   release <id> [<check>]                 released <id>      leaves the check, releases
//   rounds <id> <k> <counter> <check>      done <id> <k>      k times: acquire, enter the
//                                                             check, counter++ (exclusive
//                                                             kinds), leave, release
//   leader <id> <path>                     leader <id> <leader's id> <participants' ids,…>
//
// kind is mutex (InterProcessMutex), read or write (the sides of an
// InterProcessReadWriteLock), latch (LeaderLatch, with id as its id) or
// semaphore (InterProcessSemaphoreV2 with n leases). Each id runs its
// commands in order on a thread of its own, so a waiting acquire holds up
// only its own id. A failure answers "error <id> <message>". The first
// line is "curator <Curator's version> java <Java's version>"; the
// program exits, closing every client, at the end of its input.
//
// The check znode is how both sides prove who was inside at once: see
// Check below and interop/check.go, which is the same code in Go.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

public final class Interop {
    static PrintStream out;
    static String connect;
    static int sessionMs;
    static final Map<String, Holder> holders = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        connect = args[0];
        sessionMs = Integer.parseInt(args[1]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println("curator " + version() + " java " + System.getProperty("java.version"));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" ");
            if (f.length < 2) {
                continue;
            }
            String id = f[1];
            if (!f[0].equals("new") && !holders.containsKey(id)) {
                out.println("error " + id + " no holder " + id + " (send new first)");
                continue;
            }
            switch (f[0]) {
                case "new" -> {
                    Holder h = new Holder(id, f[2], f[3], f.length > 4 ? Integer.parseInt(f[4]) : 0);
                    holders.put(id, h);
                    h.run(() -> {
                        h.open();
                        out.println("ready " + id);
                    });
                }
                case "acquire" -> holders.get(id).run(() -> {
                    Holder h = holders.get(id);
                    h.acquire();
                    if (f.length > 2) {
                        Check.enter(h.client, f[2], Check.JAVA, h.exclusive());
                    }
                    out.println("acquired " + id);
                });
                case "release" -> holders.get(id).run(() -> {
                    Holder h = holders.get(id);
                    if (f.length > 2) {
                        Check.leave(h.client, f[2], Check.JAVA, h.exclusive());
                    }
                    h.release();
                    out.println("released " + id);
                });
                case "rounds" -> holders.get(id).run(() -> {
                    int k = Integer.parseInt(f[2]);
                    holders.get(id).rounds(k, f[3], f[4]);
                    out.println("done " + id + " " + k);
                });
                case "leader" -> holders.get(id).run(() -> {
                    out.println("leader " + id + " " + holders.get(id).leader(f[2]));
                });
                default -> out.println("error " + id + " unknown command " + f[0]);
            }
        }
        List<Thread> closing = new ArrayList<>();
        for (Holder h : holders.values()) {
            Thread t = new Thread(h::close);
            t.start();
            closing.add(t);
        }
        for (Thread t : closing) {
            t.join();
        }
    }

    interface Step {
        void run() throws Exception;
    }

    // Holder is one client: its own CuratorFramework (its own session), one
    // recipe, and a thread that runs its commands in order.
    static final class Holder {
        final String id, kind, path;
        final int n;
        final ExecutorService thread = Executors.newSingleThreadExecutor();
        CuratorFramework client;
        InterProcessMutex mutex;        // mutex, read, write
        InterProcessSemaphoreV2 semaphore;
        Lease lease;                    // the semaphore's, while held
        LeaderLatch latch;              // while campaigning or leading

        Holder(String id, String kind, String path, int n) {
            this.id = id;
            this.kind = kind;
            this.path = path;
            this.n = n;
        }

        void run(Step s) {
            thread.execute(() -> {
                try {
                    s.run();
                } catch (Exception e) {
                    out.println("error " + id + " " + oneLine(e));
                }
            });
        }

        void open() throws Exception {
            CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                    .connectString(connect)
                    .sessionTimeoutMs(sessionMs)
                    .connectionTimeoutMs(15000)
                    .retryPolicy(new RetryNTimes(3, 100))
                    .ensembleTracker(false);
            // With ZK_AUTH=user:password lockstep makes its nodes
            // creator-only for that user: Curator authenticates as the
            // same user and does the same, or neither could enter the
            // other's directories.
            String auth = System.getenv("ZK_AUTH");
            if (auth != null && !auth.isEmpty()) {
                b.authorization("digest", auth.getBytes(StandardCharsets.UTF_8)).aclProvider(new ACLProvider() {
                    public List<ACL> getDefaultAcl() {
                        return ZooDefs.Ids.CREATOR_ALL_ACL;
                    }

                    public List<ACL> getAclForPath(String p) {
                        return ZooDefs.Ids.CREATOR_ALL_ACL;
                    }
                });
            }
            client = b.build();
            client.start();
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no session with " + connect + " within 30 s");
            }
            switch (kind) {
                case "mutex" -> mutex = new InterProcessMutex(client, path);
                case "read" -> mutex = new InterProcessReadWriteLock(client, path).readLock();
                case "write" -> mutex = new InterProcessReadWriteLock(client, path).writeLock();
                case "semaphore" -> semaphore = new InterProcessSemaphoreV2(client, path, n);
                case "latch" -> { }
                default -> throw new IllegalArgumentException("unknown kind " + kind);
            }
        }

        // exclusive: whether this holder must be alone (mutex, writer,
        // leader), for the check.
        boolean exclusive() {
            return kind.equals("mutex") || kind.equals("write") || kind.equals("latch");
        }

        void acquire() throws Exception {
            switch (kind) {
                case "semaphore" -> lease = semaphore.acquire();
                case "latch" -> {
                    // A LeaderLatch cannot start again once closed: one per
                    // campaign.
                    latch = new LeaderLatch(client, path, id);
                    latch.start();
                    latch.await();
                }
                default -> mutex.acquire();
            }
        }

        void release() throws Exception {
            switch (kind) {
                case "semaphore" -> {
                    semaphore.returnLease(lease);
                    lease = null;
                }
                case "latch" -> {
                    latch.close();
                    latch = null;
                }
                default -> mutex.release();
            }
        }

        void rounds(int k, String counter, String check) throws Exception {
            for (int i = 0; i < k; i++) {
                acquire();
                Check.enter(client, check, Check.JAVA, exclusive());
                if (exclusive()) {
                    // The unguarded read-modify-write the lock must
                    // protect: read, then write back one more, whatever is
                    // there now.
                    int v = Integer.parseInt(new String(client.getData().forPath(counter), StandardCharsets.UTF_8));
                    client.setData().withVersion(-1).forPath(counter,
                            Integer.toString(v + 1).getBytes(StandardCharsets.UTF_8));
                }
                Check.leave(client, check, Check.JAVA, exclusive());
                release();
            }
        }

        // leader is who leads the election on p as a LeaderLatch reads it,
        // and every participant's id, in order.
        String leader(String p) throws Exception {
            LeaderLatch reader = new LeaderLatch(client, p, "reader");
            List<String> ids = new ArrayList<>();
            for (Participant x : reader.getParticipants()) {
                ids.add(x.getId());
            }
            return reader.getLeader().getId() + " " + String.join(",", ids);
        }

        void close() {
            thread.shutdownNow();
            if (latch != null) {
                try {
                    latch.close();
                } catch (IOException ignored) {
                    // closing the client ends the session anyway
                }
            }
            if (client != null) {
                client.close();
            }
        }
    }

    // Check is the occupancy record both sides keep in one znode, updated
    // with compare-and-set (setData with the version read), so every
    // entry and exit is counted exactly once, in one order. Its data is
    // nine numbers:
    //
    //   inside-go inside-java writers max together bad last switches entries
    //
    // inside-*: holders of each side inside now; writers: exclusive
    // holders inside now; max: the most inside at once; together: entries
    // after which both sides had someone inside; bad: entries that broke
    // the rule (an exclusive holder with anyone inside, or anyone with an
    // exclusive holder inside); last: the side of the last entry (-1 none);
    // switches: entries by the other side than the one before; entries:
    // every entry.
    static final class Check {
        static final int GO = 0, JAVA = 1;

        static void enter(CuratorFramework c, String p, int side, boolean exclusive) throws Exception {
            update(c, p, r -> {
                if (exclusive ? r[0] + r[1] > 0 : r[2] > 0) {
                    r[5]++;
                }
                r[side]++;
                if (exclusive) {
                    r[2]++;
                }
                r[3] = Math.max(r[3], r[0] + r[1]);
                if (r[0] > 0 && r[1] > 0) {
                    r[4]++;
                }
                if (r[6] != side) {
                    if (r[6] >= 0) {
                        r[7]++;
                    }
                    r[6] = side;
                }
                r[8]++;
            });
        }

        static void leave(CuratorFramework c, String p, int side, boolean exclusive) throws Exception {
            update(c, p, r -> {
                r[side]--;
                if (exclusive) {
                    r[2]--;
                }
            });
        }

        interface Change {
            void apply(long[] r);
        }

        static void update(CuratorFramework c, String p, Change change) throws Exception {
            for (;;) {
                Stat st = new Stat();
                String[] f = new String(c.getData().storingStatIn(st).forPath(p), StandardCharsets.UTF_8).split(" ");
                long[] r = new long[f.length];
                for (int i = 0; i < f.length; i++) {
                    r[i] = Long.parseLong(f[i]);
                }
                change.apply(r);
                StringBuilder b = new StringBuilder();
                for (long x : r) {
                    b.append(b.length() == 0 ? "" : " ").append(x);
                }
                try {
                    c.setData().withVersion(st.getVersion()).forPath(p, b.toString().getBytes(StandardCharsets.UTF_8));
                    return;
                } catch (KeeperException.BadVersionException e) {
                    // someone else changed it since we read it: again
                }
            }
        }
    }

    static String version() {
        try (InputStream in = InterProcessMutex.class.getResourceAsStream(
                "/META-INF/maven/org.apache.curator/curator-recipes/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "?");
            }
        } catch (IOException ignored) {
            // fall through
        }
        String v = InterProcessMutex.class.getPackage().getImplementationVersion();
        return v == null ? "?" : v;
    }

    static String oneLine(Throwable e) {
        String s = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        return s.replace('\n', ' ').replace('\r', ' ');
    }
}
