package io.simdex.loadtest.quality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** English pages are drawn at most {@link Sources#PAGES_PER_PACKAGE} of one package; needs no Debian package. */
class SourcesTest {
    @TempDir
    Path dir;

    @Test
    void capped_atMostTheLimitOfOnePackage_inOrder_unownedPagesAllKept() throws IOException {
        Path man = Files.createDirectories(dir.resolve("man/man1"));
        Path info = Files.createDirectories(dir.resolve("info"));
        List<Path> files = new ArrayList<>();
        StringBuilder big = new StringBuilder("/.\n");
        StringBuilder small = new StringBuilder();
        for (int i = 0; i < 80; i++) {
            Path f = man.resolve("big" + i + ".1.gz");
            files.add(f);
            big.append(f.toAbsolutePath()).append('\n');
            if (i < 5) {
                Path g = man.resolve("small" + i + ".1.gz");
                files.add(g);
                small.append(g.toAbsolutePath()).append('\n');
            }
            if (i < 3) {
                files.add(man.resolve("unowned" + i + ".1.gz"));
            }
        }
        Files.writeString(info.resolve("google-cloud-cli.list"), big);
        Files.writeString(info.resolve("small:amd64.list"), small);
        Files.writeString(info.resolve("small:amd64.md5sums"), files.get(0).toAbsolutePath() + "\n");

        Map<String, String> owners = Sources.owners(info, dir.resolve("man"));
        assertEquals("google-cloud-cli", owners.get(files.get(0).toAbsolutePath().toString()));
        assertEquals("small", owners.get(man.resolve("small0.1.gz").toAbsolutePath().toString()));
        assertEquals(85, owners.size(), "only the lists' files under the man root");

        List<Path> kept = Sources.capped(files, owners);
        assertEquals(Sources.PAGES_PER_PACKAGE + 5 + 3, kept.size());
        assertEquals(files.stream().filter(kept::contains).toList(), kept, "in the given order");
        for (int i = 0; i < 80; i++) {
            assertEquals(i < Sources.PAGES_PER_PACKAGE, kept.contains(man.resolve("big" + i + ".1.gz")), "big" + i);
        }
        assertTrue(kept.contains(man.resolve("unowned2.1.gz")));
        assertEquals(files, Sources.capped(files, Map.of()), "without dpkg's lists nothing is cut");
        assertTrue(Sources.owners(dir.resolve("no-dpkg"), dir).isEmpty());
    }

    @Test
    void englishDocs_readmeAndNewsOfEachPackage_atMostTwoAPackage_longOnes() throws IOException {
        Path doc = dir.resolve("doc");
        String words = "word ".repeat(300);
        for (String name : List.of("README", "README.Debian", "NEWS.md", "copyright", "changelog")) {
            Files.createDirectories(doc.resolve("a"));
            Files.writeString(doc.resolve("a").resolve(name), name + " " + words);
        }
        Files.createDirectories(doc.resolve("b/examples"));
        Files.writeString(doc.resolve("b/README.rst"), "b " + words);
        Files.writeString(doc.resolve("b/examples/README"), "nested " + words);
        Files.createDirectories(doc.resolve("c"));
        Files.writeString(doc.resolve("c/README"), "too short");

        assertEquals(List.of(doc.resolve("a/NEWS.md"), doc.resolve("a/README"), doc.resolve("a/README.Debian"), doc.resolve("b/README.rst"),
                doc.resolve("c/README")), Sources.docFiles(doc));
        List<Doc> docs = new Sources(dir, null, doc, 7).englishDocs(10);
        assertEquals(3, docs.size(), "two of package a, one of b, none too short: " + docs);
        assertEquals(2, docs.stream().filter(d -> d.group().equals("doc:a")).count());
        assertTrue(Sources.docFiles(dir.resolve("none")).isEmpty());
    }
}
