"""Drive the rackboot testbed BMC emulator with sushy (OpenStack's Redfish
library): insert a CD, boot once from it, power on, eject.

Usage: sushy_client.py <root-url> <user> <password> <image-url>
"""
import sys

import sushy
import urllib3

urllib3.disable_warnings()

root_url, user, password, image = sys.argv[1:5]
# sushy's default authentication: a Redfish session if the service offers
# one (the emulator does), else HTTP Basic.
auth = sushy.auth.SessionOrBasicAuth(username=user, password=password)
conn = sushy.Sushy(root_url, verify=False, auth=auth)
systems = conn.get_system_collection()
system = conn.get_system(systems.members_identities[0])
print("system=%s power=%s" % (system.identity, system.power_state))
print("session=%s" % (auth.get_session_key() is not None))
nics = system.ethernet_interfaces.get_members()
print("mac=%s" % nics[0].mac_address)

manager = conn.get_manager(conn.get_manager_collection().members_identities[0])
cd = manager.virtual_media.get_member(manager.virtual_media.members_identities[0])
cd.insert_media(image, inserted=True, write_protected=True)
cd.refresh()
print("inserted=%s image=%s" % (cd.inserted, cd.image))

system.set_system_boot_source(sushy.BOOT_SOURCE_TARGET_CD,
                              enabled=sushy.BOOT_SOURCE_ENABLED_ONCE,
                              mode=sushy.BOOT_SOURCE_MODE_UEFI)
system.reset_system(sushy.RESET_ON)
system.refresh()
print("power=%s" % system.power_state)

cd.eject_media()
cd.refresh()
print("ejected=%s" % cd.inserted)
