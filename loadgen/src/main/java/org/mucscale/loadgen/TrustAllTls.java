package org.mucscale.loadgen;

import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/** The generator's TLS client context (STARTTLS). */
final class TrustAllTls {
    private TrustAllTls() {
    }

    /** Trusts any certificate: the generator talks to throwaway test servers with self-signed certificates. */
    static SSLContext trustAllContext() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new X509ExtendedTrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType, java.net.Socket s) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType, java.net.Socket s) {
                }

                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine e) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine e) {
                }

                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, null);
            return ctx;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("TLS not available", e);
        }
    }
}
