// What the access log writes that is cheaper formatted in C: the client's address (declared in
// include/CMicroHTTPD.h).
#if defined(__linux__)

#include "CMicroHTTPD.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

int CMicroHTTPD_clientAddress(struct MHD_Connection *connection, char *buffer, socklen_t capacity) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) {
        return -1;
    }
    const struct sockaddr *address = info->client_addr;
    const void *raw;
    if (address->sa_family == AF_INET && capacity >= INET_ADDRSTRLEN) {
        // memcpy: the address has no alignment guarantee for the uint32_t it holds.
        uint32_t host;
        memcpy(&host, &((const struct sockaddr_in *)address)->sin_addr, sizeof host);
        const uint8_t *octets = (const uint8_t *)&host;
        char *out = buffer;
        for (int i = 0; i < 4; i++) {
            unsigned value = octets[i];
            if (value >= 100) {
                *out++ = (char)('0' + value / 100);
                value %= 100;
                *out++ = (char)('0' + value / 10);
                value %= 10;
            } else if (value >= 10) {
                *out++ = (char)('0' + value / 10);
                value %= 10;
            }
            *out++ = (char)('0' + value);
            *out++ = i < 3 ? '.' : '\0';
        }
        return 0;
    } else if (address->sa_family == AF_INET) {
        raw = &((const struct sockaddr_in *)address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        raw = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, raw, buffer, capacity) == NULL ? -1 : 0;
}

#endif  // __linux__
