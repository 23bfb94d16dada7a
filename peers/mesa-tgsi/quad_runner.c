/* quad_runner.c: runs one TGSI text shader on one quad (four lanes) of
 * Mesa's tgsi_exec and prints what it wrote. It is the `tgsi_exec` peer of
 * `tgsi bench --peer` and the source of the fixtures under
 * tests/fixtures/mesa_exec/ and tests/fixtures/tokens/.
 *
 *   tgsi_run SHADER.tgsi [SPEC] [--bench N] [--dump] [--tokens]
 *
 * --tokens  prints Mesa's tgsi_token words of the shader (TOKENS n, then 8
 *           hex words a line) and stops;
 * --dump    prints Mesa's tgsi_dump of the shader first;
 * --bench N runs the quad N times and prints
 *           `BENCH N quad-runs in S s = X ns/quad-run, L lanes/s`.
 *
 * Otherwise it prints `TYPE t`, `ALIVE mask`, each output register per lane
 * as `OUT[k].laneL w0 w1 w2 w3   ( f0 f1 f2 f3 )` (geometry shaders: one
 * `PRIM p VTX v OUT[k]` line per emitted vertex), then `BUF[u] words...`.
 *
 * The SPEC file sets the inputs, one per line (`#` starts a comment); a
 * value is a float, `0x` raw bits, or an integer with suffix `i` or `u`:
 *
 *   IN[i] x y z w          IN[i].lane L x y z w
 *   SV[i] x y z w          SV[i].lane L x y z w
 *   SVN NAME x y z w       SVN NAME lane L x y z w   (by semantic name)
 *   CONST[b][i] x y z w
 *   BUF[u] NBYTES          BUFW[u] OFFSET w0 w1 ...
 *   GSIN v a x y z w       (geometry input vertex v, attribute a)
 *   MASK m                 (lanes that are not helpers, default 0xf)
 *   LOCALMEM NBYTES        (compute shared memory)
 *
 * Fragment shaders run with their inputs as given (no interpolation): the
 * machine runs them as a vertex shader, and a KILL shows in ALIVE. Texture
 * and image opcodes see fixed stand-ins: a sample returns (s, t, r, lod or
 * 0), a fetch its integer coordinates, a size query 64x32 with 7 levels;
 * an image load returns its coordinates, stores and atomics are printed.
 * So compare ALU, 64-bit, conversion, flow, buffer, shared-memory and
 * atomic opcodes with it, not sampling. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipe/p_shader_tokens.h"
#include "pipe/p_state.h"
#include "tgsi/tgsi_dump.h"
#include "tgsi/tgsi_exec.h"
#include "tgsi/tgsi_parse.h"
#include "tgsi/tgsi_strings.h"
#include "tgsi/tgsi_text.h"

enum { TOKEN_CAPACITY = 1 << 16, BUFFER_SLOTS = 8, CONST_SLOTS = 4096, MAX_WORDS = 80 };

static struct tgsi_token shader_tokens[TOKEN_CAPACITY];
static uint32_t constants[PIPE_MAX_CONSTANT_BUFFERS][CONST_SLOTS][4];
static unsigned constant_slots[PIPE_MAX_CONSTANT_BUFFERS];
static uint8_t *buffer_bytes[BUFFER_SLOTS];
static uint32_t buffer_length[BUFFER_SLOTS];

static void fail(const char *what, const char *detail)
{
   fprintf(stderr, "tgsi_run: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
   exit(2);
}

static char *read_whole(const char *path)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      fail("cannot open", path);
   size_t cap = 1 << 16, len = 0;
   char *data = malloc(cap);
   size_t got;
   while ((got = fread(data + len, 1, cap - len - 1, f)) > 0) {
      len += got;
      if (len + 1 == cap)
         data = realloc(data, cap *= 2);
   }
   fclose(f);
   data[len] = 0;
   return data;
}

static uint32_t word_of(const char *text)
{
   size_t n = strlen(text);
   if (n > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
      return (uint32_t)strtoul(text, NULL, 16);
   if (n > 1 && (text[n - 1] == 'i' || text[n - 1] == 'u'))
      return (uint32_t)strtoll(text, NULL, 10);
   float f = strtof(text, NULL);
   uint32_t bits;
   memcpy(&bits, &f, 4);
   return bits;
}

/* Writes up to four words into `v`, in every lane or in lane `lane`. */
static void fill(struct tgsi_exec_vector *v, int lane, char **words, int count)
{
   for (int c = 0; c < 4 && c < count; c++) {
      uint32_t bits = word_of(words[c]);
      for (int l = 0; l < TGSI_QUAD_SIZE; l++)
         if (lane < 0 || lane == l)
            v->xyzw[c].u[l] = bits;
   }
}

/* `REG[i] ...` or `REG[i].lane L ...`: the lane and where the words start. */
static int lane_of(const char *head, char **words, int *first)
{
   if (strstr(head, ".lane")) {
      *first = 2;
      return atoi(words[1]);
   }
   *first = 1;
   return -1;
}

/* ---- the stand-in sampler, images and the buffers ---- */

static void sample(struct tgsi_sampler *s, const unsigned view, const unsigned smp,
                   const float S[4], const float T[4], const float R[4], const float c0[4],
                   const float c1[4], float derivs[3][2][4], const int8_t offset[3],
                   enum tgsi_sampler_control control, float rgba[4][4])
{
   (void)s, (void)view, (void)smp, (void)c0, (void)derivs, (void)offset;
   int with_lod = control == TGSI_SAMPLER_LOD_EXPLICIT || control == TGSI_SAMPLER_LOD_BIAS;
   for (int l = 0; l < 4; l++) {
      rgba[0][l] = S[l];
      rgba[1][l] = T[l];
      rgba[2][l] = R[l];
      rgba[3][l] = with_lod ? c1[l] : 0.0f;
   }
}

static void size_of_view(struct tgsi_sampler *s, const unsigned view, int level, int dims[4])
{
   (void)s, (void)view;
   dims[0] = 64 >> level;
   dims[1] = 32 >> level;
   dims[2] = 1;
   dims[3] = 7;
}

static void fetch(struct tgsi_sampler *s, const unsigned view, const int i[4], const int j[4],
                  const int k[4], const int lod[4], const int8_t offset[3], float rgba[4][4])
{
   (void)s, (void)view, (void)offset;
   for (int l = 0; l < 4; l++) {
      rgba[0][l] = (float)i[l];
      rgba[1][l] = (float)j[l];
      rgba[2][l] = (float)k[l];
      rgba[3][l] = (float)lod[l];
   }
}

static void lod_query(const struct tgsi_sampler *s, const unsigned view, const unsigned smp,
                      const float S[4], const float T[4], const float P[4], const float c0[4],
                      const enum tgsi_sampler_control control, float mipmap[4], float lod[4])
{
   (void)s, (void)view, (void)smp, (void)T, (void)P, (void)c0, (void)control;
   for (int l = 0; l < 4; l++) {
      mipmap[l] = 0.0f;
      lod[l] = S[l];
   }
}

static struct tgsi_sampler stand_in_sampler = {sample, size_of_view, fetch, lod_query};

static uint32_t bits_of(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static void image_load(const struct tgsi_image *img, const struct tgsi_image_params *p,
                       const int s[4], const int t[4], const int r[4], const int smp[4],
                       float rgba[4][4])
{
   (void)img, (void)p, (void)smp;
   for (int l = 0; l < 4; l++) {
      rgba[0][l] = (float)s[l];
      rgba[1][l] = (float)t[l];
      rgba[2][l] = (float)r[l];
      rgba[3][l] = 1.0f;
   }
}

static void image_store(const struct tgsi_image *img, const struct tgsi_image_params *p,
                        const int s[4], const int t[4], const int r[4], const int smp[4],
                        float rgba[4][4])
{
   (void)img, (void)r, (void)smp;
   for (int l = 0; l < 4; l++) {
      if (!(p->execmask & (1u << l)))
         continue;
      printf("IMAGE_STORE unit %u lane %d at (%d,%d) = 0x%08x 0x%08x 0x%08x 0x%08x\n", p->unit, l,
             s[l], t[l], bits_of(rgba[0][l]), bits_of(rgba[1][l]), bits_of(rgba[2][l]),
             bits_of(rgba[3][l]));
   }
}

static void image_atomic(const struct tgsi_image *img, const struct tgsi_image_params *p,
                         enum tgsi_opcode op, const int s[4], const int t[4], const int r[4],
                         const int smp[4], float rgba[4][4], float rgba2[4][4])
{
   (void)img, (void)r, (void)smp, (void)rgba2;
   for (int l = 0; l < 4; l++) {
      if (p->execmask & (1u << l))
         printf("IMAGE_ATOMIC op %d unit %u lane %d at (%d,%d) src 0x%08x\n", op, p->unit, l, s[l],
                t[l], bits_of(rgba[0][l]));
      for (int c = 0; c < 4; c++)
         rgba[c][l] = 0.0f;
   }
}

static void image_size(const struct tgsi_image *img, const struct tgsi_image_params *p,
                       int dims[4])
{
   (void)img, (void)p;
   dims[0] = 16;
   dims[1] = 8;
   dims[2] = 1;
   dims[3] = 0;
}

static struct tgsi_image stand_in_images = {image_load, image_store, image_atomic, image_size};

static void *buffer_at(const struct tgsi_buffer *b, uint32_t unit, uint32_t *size)
{
   (void)b;
   if (unit >= BUFFER_SLOTS || !buffer_bytes[unit]) {
      *size = 0;
      return NULL;
   }
   *size = buffer_length[unit];
   return buffer_bytes[unit];
}

static struct tgsi_buffer buffers = {buffer_at};

/* ---- the spec file ---- */

struct setup {
   unsigned mask;
   unsigned local_memory;
};

static struct tgsi_exec_vector *system_value_named(struct tgsi_exec_machine *m, const char *name)
{
   for (int k = 0; k < TGSI_SEMANTIC_COUNT; k++)
      if (tgsi_semantic_names[k] && strcmp(tgsi_semantic_names[k], name) == 0)
         return m->SysSemanticToIndex[k] == (unsigned)-1
                   ? NULL
                   : &m->SystemValue[m->SysSemanticToIndex[k]];
   return NULL;
}

static void apply_line(struct tgsi_exec_machine *m, struct setup *setup, char **w, int n)
{
   int a, b, first;
   const char *head = w[0];
   if (sscanf(head, "IN[%d]", &a) == 1) {
      int lane = lane_of(head, w, &first);
      fill(&m->Inputs[a], lane, w + first, n - first);
   } else if (sscanf(head, "SV[%d]", &a) == 1) {
      int lane = lane_of(head, w, &first);
      fill(&m->SystemValue[a], lane, w + first, n - first);
   } else if (strcmp(head, "SVN") == 0 && n >= 2) {
      struct tgsi_exec_vector *v = system_value_named(m, w[1]);
      if (!v) {
         fprintf(stderr, "tgsi_run: SVN %s: the shader declares no such system value\n", w[1]);
         return;
      }
      if (n >= 4 && strcmp(w[2], "lane") == 0)
         fill(v, atoi(w[3]), w + 4, n - 4);
      else
         fill(v, -1, w + 2, n - 2);
   } else if (sscanf(head, "CONST[%d][%d]", &a, &b) == 2) {
      if (a < 0 || a >= PIPE_MAX_CONSTANT_BUFFERS || b < 0 || b >= CONST_SLOTS)
         fail("constant out of range", head);
      for (int c = 0; c < 4 && c + 1 < n; c++)
         constants[a][b][c] = word_of(w[c + 1]);
      if ((unsigned)b + 1 > constant_slots[a])
         constant_slots[a] = b + 1;
   } else if (sscanf(head, "BUFW[%d]", &a) == 1 && n >= 2) {
      uint32_t offset = strtoul(w[1], NULL, 0);
      if (a < 0 || a >= BUFFER_SLOTS || !buffer_bytes[a] ||
          offset + 4u * (n - 2) > buffer_length[a])
         fail("BUFW outside its buffer", head);
      for (int k = 2; k < n; k++) {
         uint32_t word = (uint32_t)strtoul(w[k], NULL, 0);
         memcpy(buffer_bytes[a] + offset + 4 * (k - 2), &word, 4);
      }
   } else if (sscanf(head, "BUF[%d]", &a) == 1 && n >= 2) {
      if (a < 0 || a >= BUFFER_SLOTS)
         fail("buffer index out of range", head);
      buffer_length[a] = strtoul(w[1], NULL, 0);
      buffer_bytes[a] = calloc(1, buffer_length[a] + 4);
   } else if (strcmp(head, "GSIN") == 0 && n >= 3) {
      int vertex = atoi(w[1]), attribute = atoi(w[2]);
      fill(&m->Inputs[vertex * TGSI_EXEC_MAX_INPUT_ATTRIBS + attribute], -1, w + 3, n - 3);
   } else if (strcmp(head, "MASK") == 0 && n >= 2) {
      setup->mask = strtoul(w[1], NULL, 0);
   } else if (strcmp(head, "LOCALMEM") == 0 && n >= 2) {
      setup->local_memory = strtoul(w[1], NULL, 0);
   } else {
      fail("unknown spec line", head);
   }
}

static void read_spec(struct tgsi_exec_machine *m, struct setup *setup, const char *path)
{
   char *text = read_whole(path);
   char *line_end = NULL;
   for (char *line = strtok_r(text, "\n", &line_end); line; line = strtok_r(NULL, "\n", &line_end)) {
      char *comment = strchr(line, '#');
      if (comment)
         *comment = 0;
      char *words[MAX_WORDS];
      int n = 0;
      char *word_end = NULL;
      for (char *w = strtok_r(line, " \t,", &word_end); w && n < MAX_WORDS;
           w = strtok_r(NULL, " \t,", &word_end))
         words[n++] = w;
      if (n > 0)
         apply_line(m, setup, words, n);
   }
   free(text);
}

/* ---- output ---- */

static void print_register(const char *label, const struct tgsi_exec_vector *r, int lane)
{
   printf("%s", label);
   for (int c = 0; c < 4; c++)
      printf(" 0x%08x", r->xyzw[c].u[lane]);
   printf("   (");
   for (int c = 0; c < 4; c++)
      printf(" %.9g", r->xyzw[c].f[lane]);
   printf(" )\n");
}

static void print_results(struct tgsi_exec_machine *m, enum pipe_shader_type type, unsigned alive)
{
   char label[64];
   printf("TYPE %d\nALIVE 0x%x\n", type, alive & 0xf);
   if (type == PIPE_SHADER_GEOMETRY) {
      for (int st = 0; st < TGSI_MAX_VERTEX_STREAMS; st++) {
         if (m->OutputPrimCount[st] == 0)
            continue;
         printf("STREAM %d PRIMS %u\n", st, m->OutputPrimCount[st]);
         for (unsigned p = 0; p < m->OutputPrimCount[st]; p++) {
            unsigned vertices = m->Primitives[st][p], base = m->PrimitiveOffsets[st][p];
            for (unsigned v = 0; v < vertices; v++)
               for (unsigned o = 0; o < m->NumOutputs; o++) {
                  snprintf(label, sizeof label, "PRIM %u VTX %u OUT[%u]", p, v, o);
                  print_register(label, &m->Outputs[base + v * m->NumOutputs + o], 0);
               }
         }
      }
   } else if (m->Outputs) {
      for (unsigned o = 0; o < m->NumOutputs; o++)
         for (int l = 0; l < TGSI_QUAD_SIZE; l++) {
            snprintf(label, sizeof label, "OUT[%u].lane%d", o, l);
            print_register(label, &m->Outputs[o], l);
         }
   }
   for (int u = 0; u < BUFFER_SLOTS; u++) {
      if (!buffer_bytes[u])
         continue;
      printf("BUF[%d]", u);
      for (uint32_t at = 0; at + 4 <= buffer_length[u] && at < 65536; at += 4) {
         uint32_t word;
         memcpy(&word, buffer_bytes[u] + at, 4);
         printf(" 0x%08x", word);
      }
      printf("\n");
   }
}

static double seconds_now(void)
{
   struct timespec t;
   clock_gettime(CLOCK_MONOTONIC, &t);
   return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
   if (argc < 2) {
      fprintf(stderr, "usage: %s SHADER.tgsi [SPEC] [--bench N] [--dump] [--tokens]\n", argv[0]);
      return 1;
   }
   const char *spec = NULL;
   long runs = 0;
   int dump = 0, tokens_only = 0;
   for (int i = 2; i < argc; i++) {
      if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc)
         runs = atol(argv[++i]);
      else if (strcmp(argv[i], "--dump") == 0)
         dump = 1;
      else if (strcmp(argv[i], "--tokens") == 0)
         tokens_only = 1;
      else
         spec = argv[i];
   }
   char *text = read_whole(argv[1]);
   if (!tgsi_text_translate(text, shader_tokens, TOKEN_CAPACITY))
      fail("Mesa's tgsi_text refused the shader", argv[1]);
   if (dump)
      tgsi_dump(shader_tokens, 0);
   if (tokens_only) {
      unsigned n = tgsi_num_tokens(shader_tokens);
      printf("TOKENS %u\n", n);
      for (unsigned i = 0; i < n; i++) {
         uint32_t word;
         memcpy(&word, &shader_tokens[i], 4);
         printf("%08x%s", word, (i % 8 == 7 || i + 1 == n) ? "\n" : " ");
      }
      return 0;
   }

   enum pipe_shader_type type = tgsi_get_processor_type(shader_tokens);
   struct tgsi_exec_machine *m =
      tgsi_exec_machine_create(type == PIPE_SHADER_FRAGMENT ? PIPE_SHADER_VERTEX : type);
   if (type == PIPE_SHADER_GEOMETRY)
      for (int st = 0; st < TGSI_MAX_VERTEX_STREAMS; st++) {
         m->Primitives[st] = calloc(TGSI_MAX_PRIMITIVES * 4, sizeof(unsigned));
         m->PrimitiveOffsets[st] = calloc(TGSI_MAX_PRIMITIVES * 4, sizeof(unsigned));
      }
   tgsi_exec_machine_bind_shader(m, shader_tokens, &stand_in_sampler, &stand_in_images, &buffers);
   if (m->Inputs)
      memset(m->Inputs, 0, sizeof(struct tgsi_exec_vector) * PIPE_MAX_SHADER_INPUTS);
   if (m->Outputs)
      memset(m->Outputs, 0, sizeof(struct tgsi_exec_vector) * PIPE_MAX_SHADER_OUTPUTS);

   struct setup setup = {.mask = 0xf, .local_memory = 0};
   if (spec)
      read_spec(m, &setup, spec);
   const void *buffers_of_constants[PIPE_MAX_CONSTANT_BUFFERS];
   unsigned sizes[PIPE_MAX_CONSTANT_BUFFERS];
   for (int b = 0; b < PIPE_MAX_CONSTANT_BUFFERS; b++) {
      buffers_of_constants[b] = constants[b];
      sizes[b] = constant_slots[b] * 16;
   }
   tgsi_exec_set_constant_buffers(m, PIPE_MAX_CONSTANT_BUFFERS, buffers_of_constants, sizes);
   if (setup.local_memory) {
      m->LocalMem = calloc(1, setup.local_memory);
      m->LocalMemSize = setup.local_memory;
   }
   m->NonHelperMask = setup.mask;

   unsigned alive = 0;
   if (runs > 0) {
      double start = seconds_now();
      for (long r = 0; r < runs; r++)
         alive = tgsi_exec_machine_run(m, 0);
      double took = seconds_now() - start;
      printf("BENCH %ld quad-runs in %.4f s = %.1f ns/quad-run, %.3g lanes/s\n", runs, took,
             took * 1e9 / (double)runs, (double)runs * 4.0 / took);
   } else {
      /* A BARRIER returns with pc set: one quad is the whole group, so the
       * run resumes where it stopped. */
      int resumed = 0;
      alive = tgsi_exec_machine_run(m, 0);
      while (m->pc != -1 && resumed < 1000) {
         alive = tgsi_exec_machine_run(m, m->pc);
         resumed++;
      }
      if (resumed)
         printf("BARRIER_RESUMES %d\n", resumed);
   }
   print_results(m, type, alive);
   tgsi_exec_machine_destroy(m);
   return 0;
}
