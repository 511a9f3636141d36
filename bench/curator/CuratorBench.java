// CuratorBench runs Apache Curator's InterProcessMutex for the bench
// (bench/curator.go), which compiles this file with javac at run time,
// starts it once per run and drives it over stdin/stdout, one line each
// way per step:
//
//   go → java                                         java → go
//   prepare <connect> <session ms> <lock dir>          ready
//           <contenders> <rounds> <shared 0|1>
//           <hold µs> <budget ms>
//   go                                                 result {"acquires":…,"releases":…,
//                                                             "elapsed_ns":…,"waits_ns":[…],"error":"…"}
//   close                                              closed
//   warmup <connect> <session ms> <lock dir> <ms>      warm
//
// Any step that fails answers "error <message>" instead. The first line the
// runner prints is "curator <Curator's version> java <Java's version>".
//
// prepare opens the sessions, makes the locks and starts the threads, which
// then wait for "go": the bench reads its wire counters between "ready" and
// "go" and again between "result" and "close", so connecting and closing
// sessions fall outside the measured window, as they do for the Go locks.
//
// Two workloads, as the bench names them:
//   - shared 0 (the bench's contention rows): each contender is a thread with
//     its own CuratorFramework (its own session) and its own InterProcessMutex,
//     and runs <rounds> times acquire → hold → release;
//   - shared 1 (the seed row, the article's inventory test): all threads share
//     ONE CuratorFramework and ONE InterProcessMutex on one lock path, and
//     each acquires once (rounds 1). Curator keeps one LockInternals per
//     InterProcessMutex and wakes every thread waiting in it (notifyAll) when
//     the watched node goes away: this is the herd the bench measures.
//
// The connect string is the bench's counting proxy, never the server itself.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;

public final class CuratorBench {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println("curator " + version() + " java " + System.getProperty("java.version"));
        Run run = null;
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.trim().split(" ");
            try {
                switch (f[0]) {
                    case "prepare" -> {
                        if (run != null) {
                            run.close();
                        }
                        run = new Run(f[1], Integer.parseInt(f[2]), f[3], Integer.parseInt(f[4]),
                                Integer.parseInt(f[5]), f[6].equals("1"), Long.parseLong(f[7]), Long.parseLong(f[8]));
                        out.println("ready");
                    }
                    case "go" -> out.println("result " + run.go());
                    case "close" -> {
                        if (run != null) {
                            run.close();
                        }
                        run = null;
                        out.println("closed");
                    }
                    case "warmup" -> {
                        warmUp(f[1], Integer.parseInt(f[2]), f[3], Long.parseLong(f[4]));
                        out.println("warm");
                    }
                    default -> out.println("error unknown command " + f[0]);
                }
            } catch (Exception e) {
                if (run != null) {
                    run.close();
                    run = null;
                }
                out.println("error " + oneLine(e));
            }
        }
        if (run != null) {
            run.close();
        }
    }

    // version is the Curator release on the class path, from the Maven
    // properties its jar carries (Maven Central's and Debian's alike).
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

    // start builds a client and starts connecting; await waits for its
    // session. Separate, so that many clients connect at once.
    static CuratorFramework start(String connect, int sessionMs) {
        // The ensemble tracker is off: it reads /zookeeper/config on its own
        // and could move the client from the counting proxy to the address
        // the server advertises. It sends nothing a lock needs.
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(sessionMs)
                .connectionTimeoutMs(15000)
                .retryPolicy(new RetryNTimes(3, 100))
                .ensembleTracker(false)
                .build();
        c.start();
        return c;
    }

    static void await(CuratorFramework c) throws InterruptedException {
        if (!c.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no session with " + c.getZookeeperClient().getCurrentConnectionString()
                    + " within 30 s");
        }
    }

    static CuratorFramework connect(String connect, int sessionMs) throws InterruptedException {
        CuratorFramework c = start(connect, sessionMs);
        try {
            await(c);
        } catch (InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    // closeAll closes the clients at once: each close waits for the
    // server's answer.
    static void closeAll(List<CuratorFramework> clients) {
        List<Thread> closing = new ArrayList<>();
        for (CuratorFramework c : clients) {
            Thread t = new Thread(c::close);
            t.start();
            closing.add(t);
        }
        for (Thread t : closing) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // warmUp acquires and releases one lock for ms milliseconds, so the JIT
    // has compiled Curator's lock path before the first measured sample.
    static void warmUp(String connect, int sessionMs, String dir, long ms) throws Exception {
        CuratorFramework c = connect(connect, sessionMs);
        try {
            InterProcessMutex m = new InterProcessMutex(c, dir);
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            while (System.nanoTime() < end) {
                m.acquire();
                m.release();
            }
        } finally {
            c.close();
        }
    }

    static final class Run {
        final List<CuratorFramework> clients = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        final CountDownLatch start = new CountDownLatch(1);
        final AtomicInteger acquires = new AtomicInteger(), releases = new AtomicInteger();
        final long[][] waits;
        final int[] counts;
        final List<String> errors = new ArrayList<>();
        final long budgetNs;
        volatile long deadline;

        Run(String connect, int sessionMs, String dir, int contenders, int rounds, boolean shared, long holdMicros,
                long budgetMs) throws Exception {
            budgetNs = TimeUnit.MILLISECONDS.toNanos(budgetMs);
            waits = new long[contenders][Math.min(rounds, 1024)];
            counts = new int[contenders];
            try {
                for (int i = 0; i < (shared ? 1 : contenders); i++) {
                    clients.add(start(connect, sessionMs));
                }
                for (CuratorFramework c : clients) {
                    await(c);
                }
                InterProcessMutex common = shared ? new InterProcessMutex(clients.get(0), dir) : null;
                for (int i = 0; i < contenders; i++) {
                    InterProcessMutex lock = shared ? common : new InterProcessMutex(clients.get(i), dir);
                    int id = i;
                    Thread t = new Thread(() -> contend(id, lock, rounds, holdMicros), "contender-" + i);
                    t.setDaemon(true);
                    threads.add(t);
                }
            } catch (Exception e) {
                close();
                throw e;
            }
            for (Thread t : threads) {
                t.start();
            }
        }

        // contend is one contender: rounds times acquire, hold, release. It
        // stops early, without an error, when the budget runs out; an acquire
        // still waiting then gives up (Curator deletes its node).
        void contend(int id, InterProcessMutex lock, int rounds, long holdMicros) {
            try {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    long t0 = System.nanoTime();
                    long left = deadline - t0;
                    if (left <= 0 || !lock.acquire(left, TimeUnit.NANOSECONDS)) {
                        return;
                    }
                    if (counts[id] == waits[id].length) {
                        waits[id] = Arrays.copyOf(waits[id], 2 * counts[id]);
                    }
                    waits[id][counts[id]++] = System.nanoTime() - t0;
                    acquires.incrementAndGet();
                    if (holdMicros > 0) {
                        TimeUnit.MICROSECONDS.sleep(holdMicros);
                    }
                    lock.release();
                    releases.incrementAndGet();
                }
            } catch (Exception e) {
                synchronized (errors) {
                    errors.add(Thread.currentThread().getName() + ": " + oneLine(e));
                }
            }
        }

        String go() throws InterruptedException {
            long t0 = System.nanoTime();
            deadline = t0 + budgetNs;
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            long elapsed = System.nanoTime() - t0;
            StringBuilder b = new StringBuilder();
            b.append("{\"acquires\":").append(acquires.get());
            b.append(",\"releases\":").append(releases.get());
            b.append(",\"elapsed_ns\":").append(elapsed);
            b.append(",\"waits_ns\":[");
            String sep = "";
            for (int i = 0; i < waits.length; i++) {
                for (int j = 0; j < counts[i]; j++) {
                    b.append(sep).append(waits[i][j]);
                    sep = ",";
                }
            }
            b.append("],\"error\":\"").append(jsonEscape(String.join("; ", errors))).append("\"}");
            return b.toString();
        }

        void close() {
            for (Thread t : threads) {
                t.interrupt();
            }
            closeAll(clients);
            clients.clear();
        }
    }

    static String oneLine(Throwable e) {
        String s = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        return s.replace('\n', ' ').replace('\r', ' ');
    }

    static String jsonEscape(String s) {
        StringBuilder b = new StringBuilder();
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                b.append('\\').append(ch);
            } else if (ch < 0x20) {
                b.append(String.format("\\u%04x", (int) ch));
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }
}
