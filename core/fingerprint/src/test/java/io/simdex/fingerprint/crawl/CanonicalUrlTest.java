package io.simdex.fingerprint.crawl;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CanonicalUrlTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "https://a.cn/1                       | https://a.cn/1",
            "HTTPS://A.CN/1                       | https://a.cn/1",
            "https://a.cn/1#comments              | https://a.cn/1",
            "https://a.cn:443/1                   | https://a.cn/1",
            "http://a.cn:80                       | http://a.cn/",
            "http://a.cn:                         | http://a.cn/",
            "http://a.cn:0080/x                   | http://a.cn/x",
            "https://a.cn:80/x                    | https://a.cn:80/x",
            "http://a.cn:8080/x                   | http://a.cn:8080/x",
            "http://a.cn?x=1                      | http://a.cn/?x=1",
            "http://a.cn/b?                       | http://a.cn/b",
            "http://a.cn/b?#top                   | http://a.cn/b",
            "http://a.cn/b?z=1&a=2                | http://a.cn/b?z=1&a=2",
            "http://a.cn/a/./b/../c               | http://a.cn/a/c",
            "http://a.cn/a/b/..                   | http://a.cn/a/",
            "http://a.cn/../../x                  | http://a.cn/x",
            "http://a.cn/a//b/.                   | http://a.cn/a//b/",
            "http://a.cn/v1.2/file.tar.gz         | http://a.cn/v1.2/file.tar.gz",
            "http://a.cn/%7euser/%2f/%2E/x        | http://a.cn/~user/%2F/x",
            "http://a.cn/%e4%b8%ad                | http://a.cn/%E4%B8%AD",
            "http://a.cn/路径?q=中文               | http://a.cn/%E8%B7%AF%E5%BE%84?q=%E4%B8%AD%E6%96%87",
            "http://a.cn/x y?q=a b                | http://a.cn/x%20y?q=a%20b",
            "http://a.cn/100%?p=50%25             | http://a.cn/100%25?p=50%25",
            "http://a.cn/a+b?c=d+e&f=/g?h         | http://a.cn/a+b?c=d+e&f=/g?h",
            "http://a.cn/😀                        | http://a.cn/%F0%9F%98%80",
            "http://例子.中国/x                     | http://xn--fsqu00a.xn--fiqs8s/x",
            "http://Bücher.DE/                    | http://xn--bcher-kva.de/",
            "http://User:P%41ss@A.cn/x            | http://User:PAss@a.cn/x",
            "http://[2001:DB8::1]:80/x            | http://[2001:db8::1]/x",
            "http://[::1]:8080                    | http://[::1]:8080/",
            "ftp://files.a.cn:21/pub              | ftp://files.a.cn/pub",
            "'  https://a.cn/1 '                  | https://a.cn/1",
    })
    void spellingsOfOneAddress_haveOneCanonicalForm(String url, String canonical) {
        assertEquals(canonical, CanonicalUrl.of(url));
        assertEquals(canonical, CanonicalUrl.of(canonical), "a canonical form is its own");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "a.cn/1                 | has no scheme",
            "not a url              | has no scheme",
            "://a.cn/               | has no scheme",
            "1http://a.cn/          | has no scheme",
            "mailto:x@a.cn          | is not a URL with a host (mailto://host/...)",
            "http:/a.cn/x           | is not a URL with a host",
            "http:///x              | has no host",
            "http://user@/x         | has no host",
            "http://a cn/x          | has a host with '\\u0020' in it",
            "http://a.cn:http/x     | has a port that is not a number 0..65535: http",
            "http://a.cn:65536/x    | has a port that is not a number",
            "http://[::1/x          | has an IPv6 host without its closing ']'",
            "http://[::1]x/         | has text after its IPv6 host",
    })
    void whatIsNoAbsoluteUrlWithAHost_isRefusedSayingWhy(String url, String problem) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CanonicalUrl.of(url));
        assertTrue(e.getMessage().startsWith(problem), e.getMessage());
    }
}
