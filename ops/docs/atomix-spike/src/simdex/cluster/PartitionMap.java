package simdex.cluster;

import java.io.*;
import java.util.List;

/** 4096 virtual partitions -> replica node ids, plus epoch. Canonical bytes: Atomix's CAS compares bytes. */
public record PartitionMap(long epoch, List<String> nodes, int replicas, short[] owners) {
  public static final int VPARTS = 4096;

  public static PartitionMap roundRobin(long epoch, List<String> sortedNodes, int replicas) {
    int r = Math.min(replicas, sortedNodes.size());
    short[] o = new short[VPARTS * r];
    for (int i = 0; i < o.length; i++) o[i] = (short) ((i / r + i % r) % sortedNodes.size());
    return new PartitionMap(epoch, List.copyOf(sortedNodes), r, o);
  }

  public String owner(int vp, int replica) { return nodes.get(owners[vp * replicas + replica]); }

  public byte[] toBytes() {
    try (ByteArrayOutputStream bos = new ByteArrayOutputStream(); DataOutputStream out = new DataOutputStream(bos)) {
      out.writeLong(epoch);
      out.writeShort(nodes.size());
      for (String n : nodes) out.writeUTF(n);
      out.writeByte(replicas);
      for (short s : owners) out.writeShort(s);
      out.flush();
      return bos.toByteArray();
    } catch (IOException e) { throw new UncheckedIOException(e); }
  }

  public static PartitionMap fromBytes(byte[] b) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b))) {
      long epoch = in.readLong();
      String[] nodes = new String[in.readShort()];
      for (int i = 0; i < nodes.length; i++) nodes[i] = in.readUTF();
      int r = in.readByte();
      short[] o = new short[VPARTS * r];
      for (int i = 0; i < o.length; i++) o[i] = in.readShort();
      return new PartitionMap(epoch, List.of(nodes), r, o);
    } catch (IOException e) { throw new UncheckedIOException(e); }
  }
}
