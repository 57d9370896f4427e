// wslay (Debian libwslay-dev): RFC 6455 framing, masking, fragmentation, ping and the close handshake
// for `touchbridgectl websocket`, event-based with no I/O of its own (our event loop reads and writes).
// nettle (Debian nettle-dev): the handshake's SHA-1 and base64 (Sec-WebSocket-Accept).
#include <wslay/wslay.h>
#include <nettle/sha1.h>
#include <nettle/base64.h>
