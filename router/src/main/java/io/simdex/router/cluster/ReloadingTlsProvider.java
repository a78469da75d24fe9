package io.simdex.router.cluster;

import io.simdex.server.tls.ReloadingCredentials;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.KeyManagerFactorySpi;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.TrustManagerFactorySpi;
import java.security.InvalidAlgorithmParameterException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.Security;
import java.security.UnrecoverableKeyException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gives Atomix's messaging the TLS identity and CAs of a {@link ReloadingCredentials}, so that
 * renewed certificate files reach membership and Raft links without a restart, as they reach
 * the gRPC ports. Atomix 3.1's {@code NettyMessagingService} has no hook for it: at start it
 * loads a key store and a trust store from files and builds its Netty contexts from
 * {@code KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm())}, and the trust
 * manager factory likewise. So this JCA provider's two factories become the process's default
 * algorithms ({@link #register}): one initialised with a store that holds a marker entry answers
 * with the registered credentials' managers, which look at their files again as handshakes ask
 * for them (the JDK's engine, which Atomix's unshaded Netty runs, asks the key manager at every
 * handshake); any other store, or parameters, go to the algorithm that was the default before,
 * unchanged.
 */
final class ReloadingTlsProvider extends Provider {
    static final String ALGORITHM = "SimdexReloading";
    private static final String NAME = "SimdexReloadingTls";
    /** A marker entry's alias: this, then the registration's token (lower-case hex: PKCS12 keeps aliases in lower case). */
    private static final String MARKER = "simdex-reloading-";
    private static final Map<String, ReloadingCredentials> REGISTERED = new ConcurrentHashMap<>();
    /** The default algorithms before this provider's became the defaults. */
    private static volatile String keyDelegate;
    private static volatile String trustDelegate;

    private ReloadingTlsProvider() {
        super(NAME, "1.0", "Key and trust managers that read renewed certificate files");
        putService(new Factory(this, "KeyManagerFactory", KeySpi.class));
        putService(new Factory(this, "TrustManagerFactory", TrustSpi.class));
    }

    /**
     * Makes this provider's factories the defaults (once per process) and registers
     * {@code credentials}; returns the alias of the marker entry that a key or trust store
     * carries to stand for them.
     */
    static synchronized String register(ReloadingCredentials credentials) {
        if (Security.getProvider(NAME) == null) {
            keyDelegate = KeyManagerFactory.getDefaultAlgorithm();
            trustDelegate = TrustManagerFactory.getDefaultAlgorithm();
            Security.addProvider(new ReloadingTlsProvider());
            Security.setProperty("ssl.KeyManagerFactory.algorithm", ALGORITHM);
            Security.setProperty("ssl.TrustManagerFactory.algorithm", ALGORITHM);
        }
        byte[] token = new byte[16];
        new SecureRandom().nextBytes(token);
        String alias = MARKER + HexFormat.of().formatHex(token);
        REGISTERED.put(alias, credentials);
        return alias;
    }

    /** The credentials a marker entry of {@code store} stands for; null when it has none. */
    private static ReloadingCredentials registered(KeyStore store) throws KeyStoreException {
        if (store == null) {
            return null;
        }
        for (String alias : Collections.list(store.aliases())) {
            ReloadingCredentials c = REGISTERED.get(alias);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /** Instantiates the factories directly rather than by reflection. */
    private static final class Factory extends Service {
        Factory(Provider provider, String type, Class<?> spi) {
            super(provider, type, ALGORITHM, spi.getName(), null, null);
        }

        @Override
        public Object newInstance(Object constructorParameter) {
            return getType().equals("KeyManagerFactory") ? new KeySpi() : new TrustSpi();
        }
    }

    private static final class KeySpi extends KeyManagerFactorySpi {
        private KeyManager[] managers;

        @Override
        protected void engineInit(KeyStore store, char[] password) throws KeyStoreException, NoSuchAlgorithmException, UnrecoverableKeyException {
            ReloadingCredentials c = registered(store);
            if (c != null) {
                managers = new KeyManager[]{c.keyManager()};
            } else {
                KeyManagerFactory delegate = KeyManagerFactory.getInstance(keyDelegate);
                delegate.init(store, password);
                managers = delegate.getKeyManagers();
            }
        }

        @Override
        protected void engineInit(ManagerFactoryParameters parameters) throws InvalidAlgorithmParameterException {
            try {
                KeyManagerFactory delegate = KeyManagerFactory.getInstance(keyDelegate);
                delegate.init(parameters);
                managers = delegate.getKeyManagers();
            } catch (NoSuchAlgorithmException e) {
                throw new InvalidAlgorithmParameterException(e);
            }
        }

        @Override
        protected KeyManager[] engineGetKeyManagers() {
            if (managers == null) {
                throw new IllegalStateException("KeyManagerFactory not initialised");
            }
            return managers.clone();
        }
    }

    private static final class TrustSpi extends TrustManagerFactorySpi {
        private TrustManager[] managers;

        @Override
        protected void engineInit(KeyStore store) throws KeyStoreException {
            ReloadingCredentials c = registered(store);
            if (c != null && c.trustManager() != null) {
                managers = new TrustManager[]{c.trustManager()};
                return;
            }
            try {
                TrustManagerFactory delegate = TrustManagerFactory.getInstance(trustDelegate);
                delegate.init(store);
                managers = delegate.getTrustManagers();
            } catch (NoSuchAlgorithmException e) {
                throw new KeyStoreException(e);
            }
        }

        @Override
        protected void engineInit(ManagerFactoryParameters parameters) throws InvalidAlgorithmParameterException {
            try {
                TrustManagerFactory delegate = TrustManagerFactory.getInstance(trustDelegate);
                delegate.init(parameters);
                managers = delegate.getTrustManagers();
            } catch (NoSuchAlgorithmException e) {
                throw new InvalidAlgorithmParameterException(e);
            }
        }

        @Override
        protected TrustManager[] engineGetTrustManagers() {
            if (managers == null) {
                throw new IllegalStateException("TrustManagerFactory not initialised");
            }
            return managers.clone();
        }
    }
}
