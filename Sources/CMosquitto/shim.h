// libmosquitto (Debian libmosquitto-dev): the MQTT client of `touchbridgectl mqtt`, driven from our own
// epoll loop (mosquitto_socket, mosquitto_loop_read/write/misc), never from a thread of its own.
#include <mosquitto.h>
