/*
 * store_schema.h - what a gpulog database says it is: its application_id
 * and the schema version this gpulog writes. Below the store's files that
 * open (store.c) and create or migrate (store_migrate.c) a database.
 */
#ifndef GL_STORE_SCHEMA_H
#define GL_STORE_SCHEMA_H

#define GL_APPLICATION_ID 1735420007	/* 0x67706867 (header bytes 68..71: "gphg") */
#define GL_SCHEMA_VERSION 12
#define GL_STR_(x) #x
#define GL_STR(x) GL_STR_(x)

#endif
