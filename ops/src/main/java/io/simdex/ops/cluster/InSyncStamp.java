package io.simdex.ops.cluster;

import io.simdex.core.io.DurableFiles;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * What a node's store held when it last served reads: every acknowledged write of its
 * partitions in placement epoch {@code epoch}, in the page cache of boot {@code boot}. Written
 * (durably, in the shard directory) each time a catch-up ends with the node readable, and again
 * when a new placement only takes partitions from it.
 *
 * <p>A node restarted on the same boot, in the same epoch, with no router's mark
 * ({@link io.simdex.router.cluster.MissedWrites}) holds every write acknowledged so far: a
 * write acknowledged without it was marked before its acknowledgement, and a process killed
 * with SIGKILL loses nothing it wrote to its maps while the kernel runs. Such a node serves
 * reads without pulling its share from its peers. Another boot (an OS crash, a power loss,
 * the directory moved to another machine) may have lost recent writes, another epoch may have
 * given it partitions: then it pulls them, as a node without a stamp does.
 */
public record InSyncStamp(String node, long epoch, String boot) {
    public static final String FILE = "in-sync.properties";
    /** This machine's boot, as Linux names it; null where the file is missing, so that no stamp vouches there. */
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    /** The stamp in {@code shardDir}, or null when it has none or one this code cannot read. */
    public static InSyncStamp read(Path shardDir) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(shardDir.resolve(FILE), StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException e) { // none, or unreadable: a pull is safe either way
            return null;
        }
        String node = p.getProperty("node");
        String epoch = p.getProperty("epoch");
        String boot = p.getProperty("boot");
        if (node == null || epoch == null || boot == null) {
            return null;
        }
        try {
            return new InSyncStamp(node, Long.parseLong(epoch), boot);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Replaces the stamp in {@code shardDir}, forced to disk with its directory entry. */
    void write(Path shardDir) {
        Properties p = new Properties();
        p.setProperty("node", node);
        p.setProperty("epoch", Long.toString(epoch));
        p.setProperty("boot", boot);
        StringWriter text = new StringWriter();
        try {
            p.store(text, "What this node held when it last served reads (ClusterNode); delete it to make the next start pull");
            DurableFiles.replace(shardDir.resolve(FILE), text.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether a node {@code node} started in epoch {@code epoch} on boot {@code boot} holds what this stamp says. */
    boolean vouchesFor(String node, long epoch, String boot) {
        return boot != null && this.boot.equals(boot) && this.node.equals(node) && this.epoch == epoch;
    }

    /** This machine's boot id, or null where it cannot be read. */
    static String currentBoot() {
        try {
            String id = Files.readString(BOOT_ID, StandardCharsets.US_ASCII).trim();
            return id.isEmpty() ? null : id;
        } catch (IOException e) {
            return null;
        }
    }
}
