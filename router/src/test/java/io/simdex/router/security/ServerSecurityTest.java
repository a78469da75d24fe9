package io.simdex.router.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ServerSecurityTest {
    @Test
    void checkListen_plaintext_loopbackOnlyUnlessInsecure() {
        ServerSecurity plain = ServerSecurity.builder().build();
        plain.checkListen("127.0.0.1");
        plain.checkListen("localhost");
        plain.checkListen("::1");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> plain.checkListen("0.0.0.0"));
        assertTrue(e.getMessage().startsWith("refusing to listen on 0.0.0.0 without TLS"), e.getMessage());
        ServerSecurity.builder().insecure(true).build().checkListen("0.0.0.0");
    }

    @Test
    void build_halfTheTlsSettings_refused() {
        Path file = Path.of("server.crt");
        assertEquals("give both --tls-cert and --tls-key (tls.cert and tls.key), or neither",
                assertThrows(IllegalArgumentException.class, () -> ServerSecurity.builder().tls(file, null).build()).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ServerSecurity.builder().clientCa(file).build());
        assertEquals("TLS certificate file missing.crt does not exist or is not readable",
                assertThrows(IllegalArgumentException.class,
                        () -> ServerSecurity.builder().tls(Path.of("missing.crt"), Path.of("missing.key")).build()).getMessage());
    }

    @Test
    void bearer_schemeInAnyCase_elseNull() {
        assertEquals("t0k", AuthInterceptor.bearer("Bearer t0k"));
        assertEquals("t0k", AuthInterceptor.bearer("bearer t0k"));
        assertEquals(null, AuthInterceptor.bearer("Basic dXNlcjpwdw=="));
        assertEquals(null, AuthInterceptor.bearer("Bearer "));
        assertEquals(null, AuthInterceptor.bearer(null));
    }
}
