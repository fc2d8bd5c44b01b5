package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ScramTest {

    /** The exchange of RFC 5802 section 5. */
    @Test
    void exchange_rfc5802Example_producesTheRfcProofAndAcceptsTheServerSignature() {
        Scram s = new Scram("user", "pencil", "fyko+d2lbbFgONRv9qkxdawL");
        assertThat(s.clientFirst()).isEqualTo("n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL");
        String fin = s.clientFinal("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096");
        assertThat(fin).isEqualTo("c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=");
        assertThat(s.verifyServerFinal("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")).isTrue();
        assertThat(s.verifyServerFinal("v=AAAApqV8S7suAoZWja4dJRkFsKQ=")).isFalse();
    }

    @Test
    void clientFinal_serverNonceNotExtendingOurs_isRejected() {
        Scram s = new Scram("user", "pencil", "abc");
        s.clientFirst();
        assertThatThrownBy(() -> s.clientFinal("r=xyz123,s=QSXCR+Q6sek8bf92,i=4096"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("bad SCRAM server-first");
    }
}
