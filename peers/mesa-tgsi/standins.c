/* Stand-ins for two Mesa functions the TGSI sources reach but the peer
 * never needs in full: the sanity checker's template lookup in a cso_hash
 * (written here on cso_hash's public iterator API) and os_misc.c's reader of
 * option files (the peer sets no options). */
#include <string.h>
#include "cso_cache/cso_hash.h"

void *cso_hash_find_data_from_template(struct cso_hash *hash, unsigned key,
                                       void *templ, int size)
{
   struct cso_hash_iter iter = cso_hash_find(hash, key);
   while (!cso_hash_iter_is_null(iter)) {
      void *data = cso_hash_iter_data(iter);
      if (memcmp(data, templ, size) == 0)
         return data;
      iter = cso_hash_iter_next(iter);
   }
   return NULL;
}

char *os_read_file(const char *filename, size_t *size)
{
   (void)filename;
   if (size)
      *size = 0;
   return NULL;
}
