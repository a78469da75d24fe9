package io.simdex.router.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one precedence (flag > environment > file > default), the SIMDEX_ naming rule and the errors that name an origin. */
class SettingsTest {
    @TempDir
    Path dir;

    private Path file(String text) throws Exception {
        return Files.writeString(dir.resolve("embedded.properties"), text);
    }

    @Test
    void resolve_eachLayer_winsOverTheOnesBelow() throws Exception {
        Path f = file("# ports\nport=7000\nshards=2\ndata=data-a\n");
        Settings s = Settings.resolve(ConfigSchema.EMBEDDED, f, Map.of("SIMDEX_PORT", "7100", "SIMDEX_DATA", "data-b"),
                List.of(Setting.flag("port", "7200", "--port")));
        assertEquals(new Setting("port", "7200", "flag --port"), s.get("port"));
        assertEquals(new Setting("data", "data-b", "environment SIMDEX_DATA"), s.get("data"));
        assertEquals(new Setting("shards", "2", f + " line 3"), s.get("shards"));
        assertEquals(new Setting("host", "127.0.0.1", Setting.DEFAULT), s.get("host"));
    }

    @Test
    void envName_dotsBecomeUnderscores_upperCase() {
        assertEquals("SIMDEX_WRITE_QUORUM", EnvNames.of("write.quorum"));
        assertEquals("SIMDEX_TLS_CLUSTER_CA", EnvNames.of("tls.cluster.ca"));
    }

    @Test
    void env_nearMissOfAKey_isAnErrorNamingTheVariableAndTheKeyMeant() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(ConfigSchema.CLUSTER, null, Map.of("SIMDEX_WRITE_QOURUM", "1"), List.of()));
        assertEquals("environment SIMDEX_WRITE_QOURUM: names no key of node/router; did you mean SIMDEX_WRITE_QUORUM (write.quorum)?",
                e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(ConfigSchema.EMBEDDED, null, Map.of("SIMDEX_SHARD", "2"), List.of()));
        assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(ConfigSchema.EMBEDDED, null, Map.of("SIMDEX_PROT", "7411"), List.of()));
    }

    @Test
    void env_anotherProcessKey_isAWarningAndIgnored() throws Exception {
        Settings s = Settings.resolve(ConfigSchema.EMBEDDED, null, Map.of("SIMDEX_SEEDS", "n@h:1"), List.of());
        assertEquals(List.of("environment SIMDEX_SEEDS: ignored, embedded does not read seeds"), s.warnings());
    }

    @Test
    void env_otherProgramsVariables_ignoredSilently() throws Exception {
        Settings s = Settings.resolve(ConfigSchema.EMBEDDED, null,
                Map.of("SIMDEX_TOKEN", "t", "SIMDEX_TLS_CA", "ca.crt", "SIMDEX_HEAP", "1g", "SIMDEX_JOB", "crawl", "PATH", "/bin"), List.of());
        assertEquals(List.of(), s.warnings());
        assertEquals(Setting.DEFAULT, s.get("port").origin());
    }

    @Test
    void flag_unknownKey_isAnErrorNamingTheFlag() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(ConfigSchema.EMBEDDED, null, Map.of(), List.of(Setting.flag("seeds", "x", "--set seeds"))));
        assertTrue(e.getMessage().startsWith("flag --set seeds: unknown key 'seeds'; known keys: auth.file,"), e.getMessage());
    }

    @Test
    void file_keyOfAnotherProcess_isAnErrorNamingTheLine() throws Exception {
        Path f = file("port=7000\nwrite.quorum=2\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(ConfigSchema.EMBEDDED, f, Map.of(), List.of()));
        assertTrue(e.getMessage().startsWith(f + " line 2: unknown key 'write.quorum'"), e.getMessage());
    }

    @Test
    void badValue_namesItsOrigin() throws Exception {
        Settings s = Settings.resolve(ConfigSchema.EMBEDDED, file("port=7000\n"), Map.of("SIMDEX_PORT", "70000", "SIMDEX_INSECURE", "yes"),
                List.of());
        assertEquals("environment SIMDEX_PORT: port must be 0..65535, was \"70000\"",
                assertThrows(IllegalArgumentException.class, () -> s.port("port", 0)).getMessage());
        assertEquals("environment SIMDEX_INSECURE: insecure must be true or false, was \"yes\"",
                assertThrows(IllegalArgumentException.class, () -> s.bool("insecure")).getMessage());
    }

    @Test
    void required_unset_namesTheThreePlacesToSetIt() throws Exception {
        Settings s = Settings.resolve(ConfigSchema.CLUSTER, null, Map.of(), List.of());
        assertEquals("'id' is required (in the config file, SIMDEX_ID or a flag)",
                assertThrows(IllegalArgumentException.class, () -> s.required("id")).getMessage());
    }

    @Test
    void shard_eachLayerWins_andPortIsRequired() throws Exception {
        Path f = file("data=data-s1\nport=7500\nshards=3\n");
        Settings s = Settings.resolve(ConfigSchema.SHARD, f, Map.of("SIMDEX_PORT", "7600"), List.of(Setting.flag("shards", "5", "--shards")));
        assertEquals(new Setting("port", "7600", "environment SIMDEX_PORT"), s.get("port"));
        assertEquals(new Setting("shards", "5", "flag --shards"), s.get("shards"));
        assertEquals(new Setting("data", "data-s1", f + " line 1"), s.get("data"));
        assertEquals(new Setting("durability", "process", Setting.DEFAULT), s.get("durability"));
        Settings none = Settings.resolve(ConfigSchema.SHARD, null, Map.of(), List.of());
        assertEquals("'port' is required (in the config file, SIMDEX_PORT or a flag)",
                assertThrows(IllegalArgumentException.class, () -> none.required("port")).getMessage());
    }

    @Test
    void shard_keysItDoesNotRead_fileErrorEnvironmentWarning() throws Exception {
        Path f = file("port=7500\nauth.file=/etc/auth\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Settings.resolve(ConfigSchema.SHARD, f, Map.of(), List.of()));
        assertTrue(e.getMessage().startsWith(f + " line 2: unknown key 'auth.file'"), e.getMessage());
        Settings s = Settings.resolve(ConfigSchema.SHARD, null, Map.of("SIMDEX_SHARD_ADDRESSES", "h:1"), List.of());
        assertEquals(List.of("environment SIMDEX_SHARD_ADDRESSES: ignored, shard does not read shard.addresses"), s.warnings());
    }

    @Test
    void fixedRouter_defaultsAndNearMiss() throws Exception {
        Settings s = Settings.resolve(ConfigSchema.FIXED_ROUTER, null, Map.of(), List.of(Setting.flag("shard.addresses", "h:1,h:2", "--shard")));
        assertEquals(new Setting("port", "7411", Setting.DEFAULT), s.get("port"));
        assertEquals(new Setting("data", "data/router", Setting.DEFAULT), s.get("data"));
        assertEquals("environment SIMDEX_SHARD_ADRESSES: names no key of router --shard; did you mean SIMDEX_SHARD_ADDRESSES (shard.addresses)?",
                assertThrows(IllegalArgumentException.class,
                        () -> Settings.resolve(ConfigSchema.FIXED_ROUTER, null, Map.of("SIMDEX_SHARD_ADRESSES", "h:1"), List.of())).getMessage());
    }

    @Test
    void sets_seesTheEnvironmentAndTheFile_notOtherKeysOrAMissingFile() throws Exception {
        Path f = file("port=7000\nshard.addresses=h:1\n");
        assertTrue(Settings.sets("shard.addresses", f, Map.of()));
        assertTrue(Settings.sets("shard.addresses", null, Map.of("SIMDEX_SHARD_ADDRESSES", "h:1")));
        assertFalse(Settings.sets("seeds", f, Map.of("SIMDEX_SHARDS", "2")));
        assertFalse(Settings.sets("shard.addresses", dir.resolve("absent.properties"), Map.of()));
    }
}
