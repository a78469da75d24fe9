package io.simdex.core.text;

import com.hankcs.hanlp.HanLP;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * HanLP loads its dictionaries from inside the portable jar and opens no connection. The check
 * loads HanLP afresh in its own class loader, so its dictionaries load during the test whatever
 * other tests ran first, with a proxy selector that records every URL or socket the JVM tries.
 */
class HanLpOfflineTest {
    @Test
    void segment_freshHanLp_loadsDictionariesFromJarAndConnectsNowhere() throws Exception {
        URL hanLpJar = HanLP.class.getProtectionDomain().getCodeSource().getLocation();
        List<URI> connections = new CopyOnWriteArrayList<>();
        ProxySelector previousSelector = ProxySelector.getDefault();
        ClassLoader previousContext = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader isolated = new URLClassLoader(new URL[] {hanLpJar}, ClassLoader.getPlatformClassLoader())) {
            ProxySelector.setDefault(new RecordingSelector(connections));
            Thread.currentThread().setContextClassLoader(isolated);

            assertEquals(List.of("市政府", "决定", "修建", "防洪", "堤坝"), segment(isolated, "市政府决定修建防洪堤坝"));
            Class<?> config = Class.forName("com.hankcs.hanlp.HanLP$Config", true, isolated);
            assertEquals("data/dictionary/CoreNatureDictionary.mini.txt", config.getField("CoreDictionaryPath").get(null));
            assertEquals("ResourceIOAdapter", config.getField("IOAdapter").get(null).getClass().getSimpleName());
            assertEquals("jar", isolated.getResource("data/dictionary/CoreNatureDictionary.mini.txt.bin").getProtocol());
        } finally {
            ProxySelector.setDefault(previousSelector);
            Thread.currentThread().setContextClassLoader(previousContext);
        }
        assertEquals(List.of(), connections);
    }

    private static List<String> segment(ClassLoader loader, String text) throws ReflectiveOperationException {
        Object segment = Class.forName("com.hankcs.hanlp.HanLP", true, loader).getMethod("newSegment").invoke(null);
        List<?> terms = (List<?>) segment.getClass().getMethod("seg", String.class).invoke(segment, text);
        List<String> words = new ArrayList<>();
        for (Object term : terms) {
            words.add((String) term.getClass().getField("word").get(term));
        }
        return words;
    }

    private static final class RecordingSelector extends ProxySelector {
        private final List<URI> connections;

        RecordingSelector(List<URI> connections) {
            this.connections = connections;
        }

        @Override
        public List<Proxy> select(URI uri) {
            connections.add(uri);
            return List.of(Proxy.NO_PROXY);
        }

        @Override
        public void connectFailed(URI uri, SocketAddress address, IOException e) {
            connections.add(uri);
        }
    }
}
