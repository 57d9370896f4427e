// liblo (Debian liblo-dev): OSC messages and bundles for `touchbridgectl tuio`, encoded and sent over
// UDP by liblo (lo_send_bundle); its server and threads are not used.
#include <lo/lo.h>
